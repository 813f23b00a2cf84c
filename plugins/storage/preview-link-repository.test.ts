/**
 * The preview links table (migration 0026) on both real databases: only the digest finds a link,
 * and only while it is unrevoked, unexpired and its sandbox active; revoke matches account,
 * sandbox, port and id and happens once; a sandbox's links are deleted with it; and housekeeping
 * drops what has expired, revoked or not, keeping the rest (run by the reaper). The token itself is
 * never stored.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PreviewLinkRecord, reapExpiredSandboxes, type SandboxSessionRecord } from "../../core/index.ts";
import { createTestPlatform, storageTargets, type TestPlatform } from "../../test/support/platforms.ts";

describe.each(storageTargets)("the preview link repository on %s", (target) => {
  let test: TestPlatform;
  let accountId: string;
  let otherAccountId: string;
  const now = new Date("2030-01-01T00:00:00.000Z");
  beforeAll(async () => {
    test = await createTestPlatform(target);
    const account = () =>
      test.platform.storage.accounts.create({ email: `${crypto.randomUUID()}@x.io`, passwordHash: "h", now });
    accountId = (await account()).id;
    otherAccountId = (await account()).id;
  });
  afterAll(() => test.close());

  const links = () => test.platform.storage.previewLinks;
  const digest = () => crypto.randomUUID().replaceAll("-", "").padEnd(43, "x");

  async function newSession(owner = accountId): Promise<string> {
    const session: SandboxSessionRecord = {
      id: crypto.randomUUID(),
      accountId: owner,
      status: "active",
      label: null,
      size: "small",
      storageGb: null,
      runtime: "local",
      podName: null,
      connectNote: null,
      imageId: null,
      grants: { secretNames: [], mcpConnectionNames: [], volumeMounts: {}, egressHosts: [] },
      createdAt: now,
      expiresAt: new Date(now.getTime() + 3_600_000),
      destroyedAt: null,
      endedReason: null,
    };
    await test.platform.storage.sandboxSessions.reserve(owner, [session], now, () => null);
    return session.id;
  }

  async function newLink(sessionId: string, options: { seconds?: number; port?: number } = {}) {
    const record: PreviewLinkRecord = {
      tokenId: `prv_${crypto.randomUUID().slice(0, 16)}`,
      accountId,
      sessionId,
      port: options.port ?? 8080,
      createdAt: now,
      expiresAt: new Date(now.getTime() + (options.seconds ?? 600) * 1000),
    };
    const tokenDigest = digest();
    await links().create(tokenDigest, record);
    return { tokenDigest, record };
  }

  it("finds a link by its digest while unexpired, and stores no more than the digest", async () => {
    const sessionId = await newSession();
    const { tokenDigest, record } = await newLink(sessionId, { seconds: 60 });
    expect(await links().findUsable(tokenDigest, now)).toEqual(record);
    expect(await links().findUsable(digest(), now)).toBeNull();
    expect(await links().findUsable(tokenDigest, record.expiresAt)).toBeNull();
    const [row] = await test.platform.storage.execute(
      `select * from preview_links where token_id = '${record.tokenId}'`,
    );
    expect(Object.keys(row ?? {}).sort()).toEqual(
      [
        "account_id",
        "created_at",
        "expires_at",
        "port",
        "revoked_at",
        "session_id",
        "token_digest",
        "token_id",
      ].sort(),
    );
  });

  it("revokes once, only with the link's own account, sandbox, port and id", async () => {
    const sessionId = await newSession();
    const { tokenDigest, record } = await newLink(sessionId);
    const named = { accountId, sessionId, port: record.port, tokenId: record.tokenId };
    expect(await links().revoke({ ...named, accountId: otherAccountId }, now)).toBe(false);
    expect(await links().revoke({ ...named, port: 8081 }, now)).toBe(false);
    expect(await links().revoke({ ...named, sessionId: crypto.randomUUID() }, now)).toBe(false);
    expect(await links().findUsable(tokenDigest, now)).toEqual(record);
    expect(await links().revoke(named, now)).toBe(true);
    expect(await links().revoke(named, now)).toBe(false);
    expect(await links().findUsable(tokenDigest, now)).toBeNull();
    expect(await links().list(accountId, sessionId, now)).toEqual([]);
  });

  it("lists a sandbox's usable links, oldest first, for its own account only", async () => {
    const sessionId = await newSession();
    const first = await newLink(sessionId);
    const second = await newLink(sessionId, { port: 3000 });
    await newLink(await newSession());
    const listed = await links().list(accountId, sessionId, now);
    expect(listed.map((link) => link.tokenId).sort()).toEqual(
      [first.record.tokenId, second.record.tokenId].sort(),
    );
    expect(await links().list(otherAccountId, sessionId, now)).toEqual([]);
    expect(await links().list(accountId, sessionId, first.record.expiresAt)).toEqual([]);
  });

  it("refuses the links of an ended sandbox, and deletes a sandbox's links", async () => {
    const ended = await newSession();
    const endedLink = await newLink(ended);
    expect(await test.platform.storage.sandboxSessions.end(ended, "destroyed", now)).toBe(true);
    expect(await links().findUsable(endedLink.tokenDigest, now)).toBeNull();
    const kept = await newSession();
    const keptLink = await newLink(kept);
    await links().deleteForSession(ended);
    const [count] = await test.platform.storage.execute<{ total: number | string }>(
      `select count(*) as total from preview_links where session_id = '${ended}'`,
    );
    expect(Number(count?.total)).toBe(0);
    expect(await links().findUsable(keptLink.tokenDigest, now)).toEqual(keptLink.record);
  });

  it("sweeps expired links, revoked or not, and keeps the rest", async () => {
    const sessionId = await newSession();
    const short = await newLink(sessionId, { seconds: 30 });
    const revoked = await newLink(sessionId, { seconds: 30 });
    const long = await newLink(sessionId, { seconds: 3_000 });
    await links().revoke(
      { accountId, sessionId, port: revoked.record.port, tokenId: revoked.record.tokenId },
      now,
    );
    const later = new Date(now.getTime() + 60_000);
    expect(await links().purgeExpired(later)).toBeGreaterThanOrEqual(2);
    const rows = await test.platform.storage.execute<{ token_id: string }>(
      `select token_id from preview_links where session_id = '${sessionId}'`,
    );
    expect(rows.map((row) => row.token_id)).toEqual([long.record.tokenId]);
    expect(await links().findUsable(short.tokenDigest, now)).toBeNull();
  });

  it("is swept of expired links by the reaper's run", async () => {
    const sessionId = await newSession();
    const record: PreviewLinkRecord = {
      tokenId: `prv_${crypto.randomUUID().slice(0, 16)}`,
      accountId,
      sessionId,
      port: 8080,
      createdAt: new Date(Date.now() - 60_000),
      expiresAt: new Date(Date.now() - 1_000),
    };
    await links().create(digest(), record);
    await reapExpiredSandboxes(test.platform);
    const rows = await test.platform.storage.execute<{ token_id: string }>(
      `select token_id from preview_links where session_id = '${sessionId}'`,
    );
    expect(rows).toEqual([]);
  });
});
