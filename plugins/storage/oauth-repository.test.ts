/**
 * The OAuth tables (migration 0024) on both real databases: a code's and a refresh token's single
 * use holds when two requests race, a reused refresh token ends its grant, and housekeeping drops
 * what has expired and registrations never used, keeping the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OAuthGrantRecord, OAuthTokenRecord } from "../../core/index.ts";
import { createTestPlatform, storageTargets, type TestPlatform } from "../../test/support/platforms.ts";

describe.each(storageTargets)("the OAuth repository on %s", (target) => {
  let test: TestPlatform;
  let accountId: string;
  beforeAll(async () => {
    test = await createTestPlatform(target);
    accountId = (
      await test.platform.storage.accounts.create({
        email: `${crypto.randomUUID()}@x.io`,
        passwordHash: "h",
        now: new Date(),
      })
    ).id;
  });
  afterAll(() => test.close());

  const oauth = () => test.platform.storage.oauth;
  const hash = () => crypto.randomUUID().replaceAll("-", "").padEnd(64, "0");

  async function newClient(createdAt = new Date()) {
    const id = crypto.randomUUID().replaceAll("-", "").slice(0, 24);
    await oauth().createClient({
      id,
      name: "Client",
      redirectUris: ["https://app.example/cb"],
      grantTypes: ["authorization_code", "refresh_token"],
      tokenEndpointAuthMethod: "none",
      secretHash: null,
      createdAt,
    });
    return id;
  }

  async function newGrant(clientId: string, tokens: Array<Omit<OAuthTokenRecord, "grantId">>) {
    const grant: OAuthGrantRecord = {
      id: crypto.randomUUID(),
      accountId,
      clientId,
      clientName: "Client",
      resource: "http://127.0.0.1:8090/mcp",
      scope: "mcp",
      createdAt: new Date(),
      revokedAt: null,
      lastUsedAt: null,
    };
    await oauth().createGrant(
      grant,
      tokens.map((token) => ({ ...token, grantId: grant.id })),
    );
    return grant;
  }

  it("keeps a client as registered", async () => {
    const id = await newClient(new Date("2026-02-01T00:00:00.000Z"));
    expect(await oauth().findClient(id)).toMatchObject({
      id,
      redirectUris: ["https://app.example/cb"],
      secretHash: null,
      createdAt: new Date("2026-02-01T00:00:00.000Z"),
    });
    expect(await oauth().findClient("nobody")).toBeNull();
  });

  it("lets one of two racing uses of a code have it; the other learns the grant", async () => {
    const clientId = await newClient();
    const codeHash = hash();
    const now = new Date();
    await oauth().createCode(
      {
        codeHash,
        clientId,
        accountId,
        redirectUri: "https://app.example/cb",
        codeChallenge: "c".repeat(43),
        resource: "http://127.0.0.1:8090/mcp",
        scope: "mcp",
        expiresAt: new Date(now.getTime() + 60_000),
      },
      now,
    );
    const [first, second] = await Promise.all([
      oauth().useCode(codeHash, "grant-a", now),
      oauth().useCode(codeHash, "grant-b", now),
    ]);
    const states = [first.state, second.state].sort();
    expect(states).toEqual(["fresh", "used"]);
    const used = [first, second].find((use) => use.state === "used");
    const winner = first.state === "fresh" ? "grant-a" : "grant-b";
    expect(used).toEqual({ state: "used", grantId: winner });
    expect(await oauth().useCode(hash(), "grant-c", now)).toEqual({ state: "unknown" });
  });

  it("uses a refresh token once; racing or later reuse revokes its grant", async () => {
    const clientId = await newClient();
    const refresh = hash();
    const access = hash();
    const later = new Date(Date.now() + 3_600_000);
    const grant = await newGrant(clientId, [
      { tokenHash: access, kind: "access", expiresAt: later },
      { tokenHash: refresh, kind: "refresh", expiresAt: later },
    ]);
    const now = new Date();
    expect(await oauth().findAccessGrant(access, now)).toMatchObject({ id: grant.id, accountId });
    expect(await oauth().findAccessGrant(refresh, now)).toBeNull();
    const uses = await Promise.all([
      oauth().useRefreshToken(refresh, now),
      oauth().useRefreshToken(refresh, now),
    ]);
    expect(uses.map((use) => use.state).sort()).toEqual(["fresh", "reused"]);
    expect(await oauth().findAccessGrant(access, now)).toBeNull();
    expect(
      await oauth().addTokens(grant.id, [
        { tokenHash: hash(), grantId: grant.id, kind: "access", expiresAt: later },
      ]),
    ).toBe(false);
    const [listed] = (await oauth().listGrants(accountId)).filter((item) => item.id === grant.id);
    expect(listed.revokedAt).not.toBeNull();
    expect(await oauth().useRefreshToken(hash(), now)).toEqual({ state: "unknown" });
  });

  it("revokes a grant only for its account, once", async () => {
    const grant = await newGrant(await newClient(), []);
    expect(await oauth().revokeGrant(crypto.randomUUID(), grant.id, new Date())).toBe(false);
    expect(await oauth().revokeGrant(accountId, grant.id, new Date())).toBe(true);
    expect(await oauth().revokeGrant(accountId, grant.id, new Date())).toBe(false);
  });

  it("purges expired tokens and month-old clients without grants, keeping the rest", async () => {
    const now = new Date();
    const old = new Date(now.getTime() - 31 * 24 * 3_600_000);
    const unused = await newClient(old);
    const used = await newClient(old);
    const expired = hash();
    const live = hash();
    await newGrant(used, [
      { tokenHash: expired, kind: "access", expiresAt: new Date(now.getTime() - 1000) },
      { tokenHash: live, kind: "access", expiresAt: new Date(now.getTime() + 60_000) },
    ]);
    await oauth().purgeExpired(now);
    expect(await oauth().findClient(unused)).toBeNull();
    expect(await oauth().findClient(used)).not.toBeNull();
    expect(await oauth().findGrantByToken(expired)).toBeNull();
    expect(await oauth().findGrantByToken(live)).not.toBeNull();
  });
});
