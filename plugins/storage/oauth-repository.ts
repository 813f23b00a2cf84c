/**
 * The OAuth authorization server's tables (migration 0024) in bound SQL, like the API keys they
 * sit beside: an access token's lookup runs on every /mcp request it authorizes, one prepared
 * statement. A code's and a refresh token's single use is one conditional update (`used_at is
 * null … returning`), so two requests racing with the same one cannot both win.
 */
import type {
  OAuthClientRecord,
  OAuthGrantRecord,
  OAuthRepository,
  OAuthTokenRecord,
} from "../../core/index.ts";
import { sqlTimestamp } from "./memory-rows.ts";
import type { Dialect } from "./migrations/index.ts";
import type { Execute, RunTransaction } from "./sql-execution.ts";
import { raw, sql } from "./sql-statement.ts";

type Row = Record<string, unknown>;
const readTime = (value: unknown) => (value == null ? null : new Date(value as string | number | Date));

/** Unused registrations are dropped after this long (a client registers again on invalid_client). */
const unusedClientMilliseconds = 30 * 24 * 3_600_000;

const clientColumns = raw(
  "id, name, redirect_uris, grant_types, token_endpoint_auth_method, secret_hash, created_at",
);
const codeColumns = raw(
  "code_hash, client_id, account_id, redirect_uri, code_challenge, resource, scope, expires_at",
);
const grantColumns = raw(
  "id, account_id, client_id, client_name, resource, scope, created_at, revoked_at, last_used_at",
);

function readClient(row: Row): OAuthClientRecord {
  return {
    id: row.id as string,
    name: row.name as string,
    redirectUris: JSON.parse(row.redirect_uris as string) as string[],
    grantTypes: JSON.parse(row.grant_types as string) as string[],
    tokenEndpointAuthMethod: row.token_endpoint_auth_method as string,
    secretHash: (row.secret_hash as string | null) ?? null,
    createdAt: readTime(row.created_at) as Date,
  };
}

function readGrant(row: Row): OAuthGrantRecord {
  return {
    id: row.id as string,
    accountId: row.account_id as string,
    clientId: row.client_id as string,
    clientName: row.client_name as string,
    resource: row.resource as string,
    scope: row.scope as string,
    createdAt: readTime(row.created_at) as Date,
    revokedAt: readTime(row.revoked_at),
    lastUsedAt: readTime(row.last_used_at),
  };
}

export function createOAuthRepository(
  execute: Execute,
  runTransaction: RunTransaction,
  dialect: Dialect,
): OAuthRepository {
  const time = sqlTimestamp(dialect);
  const insertTokens = (run: Execute, tokens: OAuthTokenRecord[]) =>
    Promise.all(
      tokens.map((token) =>
        run(
          sql`insert into oauth_tokens (token_hash, grant_id, kind, expires_at, used_at) values (${token.tokenHash}, ${token.grantId}, ${token.kind}, ${time(token.expiresAt)}, ${null})`,
        ),
      ),
    );
  const grantOf = async (run: Execute, grantId: string) => {
    const [row] = await run(sql`select ${grantColumns} from oauth_grants where id = ${grantId}`);
    return row ? readGrant(row) : null;
  };
  return {
    async createClient(client) {
      await execute(
        sql`insert into oauth_clients (${clientColumns}) values (${client.id}, ${client.name}, ${JSON.stringify(client.redirectUris)}, ${JSON.stringify(client.grantTypes)}, ${client.tokenEndpointAuthMethod}, ${client.secretHash}, ${time(client.createdAt)})`,
      );
    },
    async findClient(id) {
      const [row] = await execute(sql`select ${clientColumns} from oauth_clients where id = ${id}`);
      return row ? readClient(row) : null;
    },
    async createCode(code) {
      await execute(
        sql`insert into oauth_codes (${codeColumns}, used_at, grant_id) values (${code.codeHash}, ${code.clientId}, ${code.accountId}, ${code.redirectUri}, ${code.codeChallenge}, ${code.resource}, ${code.scope}, ${time(code.expiresAt)}, ${null}, ${null})`,
      );
    },
    async useCode(codeHash, grantId, now) {
      const [row] = await execute(
        sql`update oauth_codes set used_at = ${time(now)}, grant_id = ${grantId} where code_hash = ${codeHash} and used_at is null returning ${codeColumns}`,
      );
      if (row)
        return {
          state: "fresh",
          code: {
            codeHash: row.code_hash as string,
            clientId: row.client_id as string,
            accountId: row.account_id as string,
            redirectUri: row.redirect_uri as string,
            codeChallenge: row.code_challenge as string,
            resource: row.resource as string,
            scope: row.scope as string,
            expiresAt: readTime(row.expires_at) as Date,
          },
        };
      const [used] = await execute(sql`select grant_id from oauth_codes where code_hash = ${codeHash}`);
      return used
        ? { state: "used", grantId: (used.grant_id as string | null) ?? null }
        : { state: "unknown" };
    },
    async createGrant(grant, tokens) {
      await runTransaction(async (run) => {
        await run(
          sql`insert into oauth_grants (${grantColumns}) values (${grant.id}, ${grant.accountId}, ${grant.clientId}, ${grant.clientName}, ${grant.resource}, ${grant.scope}, ${time(grant.createdAt)}, ${null}, ${null})`,
        );
        await insertTokens(run, tokens);
      });
    },
    async useRefreshToken(tokenHash, now) {
      return runTransaction(async (run) => {
        const [fresh] = await run(
          sql`update oauth_tokens set used_at = ${time(now)} where token_hash = ${tokenHash} and kind = 'refresh' and used_at is null returning grant_id, expires_at`,
        );
        if (fresh) {
          const grant = await grantOf(run, fresh.grant_id as string);
          if (!grant) return { state: "unknown" } as const;
          const token: OAuthTokenRecord = {
            tokenHash,
            grantId: grant.id,
            kind: "refresh",
            expiresAt: readTime(fresh.expires_at) as Date,
          };
          return { state: "fresh", grant, token } as const;
        }
        const [used] = await run(
          sql`select grant_id from oauth_tokens where token_hash = ${tokenHash} and kind = 'refresh'`,
        );
        if (!used) return { state: "unknown" } as const;
        // Reuse detection: a rotated refresh token presented again ends its whole family.
        await run(
          sql`update oauth_grants set revoked_at = ${time(now)} where id = ${used.grant_id as string} and revoked_at is null`,
        );
        const grant = await grantOf(run, used.grant_id as string);
        return grant ? ({ state: "reused", grant } as const) : ({ state: "unknown" } as const);
      });
    },
    async addTokens(grantId, tokens) {
      return runTransaction(async (run) => {
        const [active] = await run(
          sql`select id from oauth_grants where id = ${grantId} and revoked_at is null`,
        );
        if (!active) return false;
        await insertTokens(run, tokens);
        return true;
      });
    },
    // Every /mcp request with an OAuth token runs this.
    async findAccessGrant(tokenHash, now) {
      const [row] = await execute(
        sql`select g.id, g.account_id, g.client_id, g.client_name, g.resource, g.scope, g.created_at, g.revoked_at, g.last_used_at from oauth_tokens t join oauth_grants g on g.id = t.grant_id where t.token_hash = ${tokenHash} and t.kind = 'access' and t.expires_at > ${time(now)} and g.revoked_at is null`,
      );
      return row ? readGrant(row) : null;
    },
    async findGrantByToken(tokenHash) {
      const [row] = await execute(
        sql`select g.id, g.account_id, g.client_id, g.client_name, g.resource, g.scope, g.created_at, g.revoked_at, g.last_used_at from oauth_tokens t join oauth_grants g on g.id = t.grant_id where t.token_hash = ${tokenHash}`,
      );
      return row ? readGrant(row) : null;
    },
    async listGrants(accountId) {
      const rows = await execute(
        sql`select ${grantColumns} from oauth_grants where account_id = ${accountId} order by created_at desc, id desc`,
      );
      return rows.map(readGrant);
    },
    async revokeGrant(accountId, grantId, now) {
      const changed = await execute(
        accountId === null
          ? sql`update oauth_grants set revoked_at = ${time(now)} where id = ${grantId} and revoked_at is null returning id`
          : sql`update oauth_grants set revoked_at = ${time(now)} where id = ${grantId} and account_id = ${accountId} and revoked_at is null returning id`,
      );
      return changed.length > 0;
    },
    async touchGrant(grantId, now) {
      await execute(sql`update oauth_grants set last_used_at = ${time(now)} where id = ${grantId}`);
    },
    async purgeExpired(now) {
      await execute(
        sql`delete from oauth_codes where expires_at < ${time(new Date(now.getTime() - 3_600_000))}`,
      );
      await execute(sql`delete from oauth_tokens where expires_at < ${time(now)}`);
      await execute(
        sql`delete from oauth_clients where created_at < ${time(new Date(now.getTime() - unusedClientMilliseconds))} and not exists (select 1 from oauth_grants g where g.client_id = oauth_clients.id)`,
      );
    },
  };
}
