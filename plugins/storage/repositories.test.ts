/** The storage port on both real databases: the same migrations, the same behaviour. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceError } from "../../core/index.ts";
import { createTestPlatform, storageTargets, type TestPlatform } from "../../test/support/platforms.ts";
import { SandboxSessionEntity } from "./entities.ts";

describe.each(storageTargets)("repositories on %s", (target) => {
  let test: TestPlatform;
  beforeAll(async () => {
    test = await createTestPlatform(target);
  });
  afterAll(() => test.close());

  const storage = () => test.platform.storage;

  it("creates and finds accounts; a taken email is email_taken", async () => {
    const now = new Date("2026-03-01T10:00:00.123Z");
    const account = await storage().accounts.create({ email: "repo@example.com", passwordHash: "h", now });
    expect(account.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await storage().accounts.findByEmail("repo@example.com")).toMatchObject({
      id: account.id,
      createdAt: now,
    });
    expect(await storage().accounts.findById(account.id)).toMatchObject({ email: "repo@example.com" });
    expect(await storage().accounts.findById(crypto.randomUUID())).toBeNull();
    const taken = await storage()
      .accounts.create({ email: "repo@example.com", passwordHash: "h", now })
      .catch((error: unknown) => error);
    expect(taken).toBeInstanceOf(ServiceError);
    expect((taken as ServiceError).code).toBe("email_taken");
  });

  it("lists keys newest first with revoked ones, revokes once, finds only active keys", async () => {
    const account = await storage().accounts.create({
      email: `${crypto.randomUUID()}@x.io`,
      passwordHash: "h",
      now: new Date(),
    });
    const older = await storage().apiKeys.create({
      accountId: account.id,
      name: "older",
      prefix: "cairn_aaaaaaaa",
      keyHash: "a".repeat(64),
      now: new Date("2026-01-01T00:00:00Z"),
    });
    const newer = await storage().apiKeys.create({
      accountId: account.id,
      name: "newer",
      prefix: "cairn_bbbbbbbb",
      keyHash: "b".repeat(64),
      now: new Date("2026-01-02T00:00:00Z"),
    });
    expect((await storage().apiKeys.list(account.id)).map((key) => key.name)).toEqual(["newer", "older"]);
    expect(await storage().apiKeys.findActiveByHash("a".repeat(64))).toMatchObject({ id: older.id });
    expect(await storage().apiKeys.revoke(crypto.randomUUID(), older.id, new Date())).toBe(false);
    expect(await storage().apiKeys.revoke(account.id, older.id, new Date())).toBe(true);
    expect(await storage().apiKeys.revoke(account.id, older.id, new Date())).toBe(false);
    expect(await storage().apiKeys.findActiveByHash("a".repeat(64))).toBeNull();
    const listed = await storage().apiKeys.list(account.id);
    expect(listed.find((key) => key.id === older.id)?.revokedAt).toBeInstanceOf(Date);
    const used = new Date("2026-02-02T00:00:00Z");
    await storage().apiKeys.touch(newer.id, used);
    expect((await storage().apiKeys.findActiveByHash("b".repeat(64)))?.lastUsedAt).toEqual(used);
  });

  it("computes usage from sandbox sessions, counting only this month's running time", async () => {
    const account = await storage().accounts.create({
      email: `${crypto.randomUUID()}@x.io`,
      passwordHash: "h",
      now: new Date(),
    });
    const entityManager = test.platform.storage.orm.em.fork();
    const session = (createdAt: string, destroyedAt: string | null) =>
      entityManager.create(SandboxSessionEntity, {
        id: crypto.randomUUID(),
        accountId: account.id,
        status: destroyedAt ? "destroyed" : "active",
        label: null,
        size: "small",
        storageGb: null,
        runtime: "local",
        podName: null,
        connectNote: null,
        imageId: null,
        grants: {},
        createdAt: new Date(createdAt),
        expiresAt: new Date(new Date(createdAt).getTime() + 3 * 3_600_000),
        destroyedAt: destroyedAt ? new Date(destroyedAt) : null,
        endedReason: destroyedAt ? "destroyed" : null,
      });
    session("2026-02-28T23:30:00Z", "2026-03-01T00:30:00Z"); // 30 min fall in March
    session("2026-03-05T10:00:00Z", "2026-03-05T11:00:00Z"); // 60 min
    session("2026-03-10T11:45:00Z", null); // running: 15 min until "now"
    session("2026-01-10T10:00:00Z", "2026-01-10T12:00:00Z"); // another month
    await entityManager.flush();
    const figures = await storage().usage.figures(account.id, new Date("2026-03-10T12:00:00Z"));
    expect(figures).toEqual({
      activeSandboxes: 1,
      totalSandboxesCreated: 4,
      monthlySandboxSeconds: 105 * 60,
    });
  });

  it("answers ping", async () => {
    expect(await storage().ping()).toBe(true);
  });
});
