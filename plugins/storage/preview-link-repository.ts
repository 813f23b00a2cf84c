/**
 * Sandbox preview links (migration 0026) in bound SQL: a link's lookup runs on preview traffic
 * (behind a short cache in core/sandboxes/previews), one prepared statement by primary key. It
 * joins the link's sandbox, so a link of a sandbox that ended by any path (destroy, the reaper,
 * start-up reconciliation, on any replica) is refused even before its rows are deleted.
 */
import type { PreviewLinkRecord, PreviewLinkRepository } from "../../core/index.ts";
import { sqlTimestamp } from "./memory-rows.ts";
import type { Dialect } from "./migrations/index.ts";
import type { Execute } from "./sql-execution.ts";
import { raw, sql } from "./sql-statement.ts";

type Row = Record<string, unknown>;

const columns = raw("p.token_id, p.account_id, p.session_id, p.port, p.created_at, p.expires_at");

function readLink(row: Row): PreviewLinkRecord {
  return {
    tokenId: row.token_id as string,
    accountId: row.account_id as string,
    sessionId: row.session_id as string,
    port: Number(row.port),
    createdAt: new Date(row.created_at as string | number | Date),
    expiresAt: new Date(row.expires_at as string | number | Date),
  };
}

export function createPreviewLinkRepository(execute: Execute, dialect: Dialect): PreviewLinkRepository {
  const time = sqlTimestamp(dialect);
  return {
    async create(tokenDigest, link) {
      await execute(
        sql`insert into preview_links (token_digest, token_id, account_id, session_id, port, created_at, expires_at, revoked_at) values (${tokenDigest}, ${link.tokenId}, ${link.accountId}, ${link.sessionId}, ${link.port}, ${time(link.createdAt)}, ${time(link.expiresAt)}, ${null})`,
      );
    },
    async findUsable(tokenDigest, now) {
      const [row] = await execute(
        sql`select ${columns} from preview_links p join sandbox_sessions s on s.id = p.session_id where p.token_digest = ${tokenDigest} and p.revoked_at is null and p.expires_at > ${time(now)} and s.status = 'active'`,
      );
      return row ? readLink(row) : null;
    },
    async list(accountId, sessionId, now) {
      const rows = await execute(
        sql`select ${columns} from preview_links p where p.session_id = ${sessionId} and p.account_id = ${accountId} and p.revoked_at is null and p.expires_at > ${time(now)} order by p.created_at, p.token_id`,
      );
      return rows.map(readLink);
    },
    async revoke(link, now) {
      const changed = await execute(
        sql`update preview_links set revoked_at = ${time(now)} where session_id = ${link.sessionId} and token_id = ${link.tokenId} and account_id = ${link.accountId} and port = ${link.port} and revoked_at is null returning token_id`,
      );
      return changed.length > 0;
    },
    async deleteForSession(sessionId) {
      await execute(sql`delete from preview_links where session_id = ${sessionId}`);
    },
    async purgeExpired(now) {
      const deleted = await execute(
        sql`delete from preview_links where expires_at <= ${time(now)} returning token_id`,
      );
      return deleted.length;
    },
  };
}
