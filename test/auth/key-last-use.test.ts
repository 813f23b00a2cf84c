/**
 * An API key's last use is recorded beside the request that used it, not before it answers (on
 * SQLite the write waits for the one writer, which another account's import may hold), and it
 * still reaches the key's listing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/eventually.ts";
import { createTestPlatform, storageTargets, type TestPlatform } from "../support/platforms.ts";

describe.each(storageTargets)("an API key's last use on %s", (target) => {
  let test: TestPlatform;
  beforeAll(async () => {
    test = await createTestPlatform(target);
  });
  afterAll(() => test.close());

  it("shows in the listing once the key has been used", async () => {
    const email = `${crypto.randomUUID()}@example.com`;
    const signup = await test.request("/v1/auth/signup", {
      method: "POST",
      json: { email, password: "correct horse battery" },
    });
    const token = ((await signup.json()) as { access_token: string }).access_token;
    const created = await test.request("/v1/api-keys", {
      method: "POST",
      json: { name: "used" },
      credential: token,
    });
    const key = ((await created.json()) as { key: string }).key;
    const lastUse = async (): Promise<string | null> => {
      const listing = await test.request("/v1/api-keys", { credential: token });
      const keys = (await listing.json()) as Array<{ last_used_at: string | null }>;
      return keys[0]?.last_used_at ?? null;
    };
    expect(await lastUse()).toBeNull();
    expect((await test.request("/v1/account", { credential: key })).status).toBe(200);
    const recorded = await eventually(async () => (await lastUse()) ?? undefined);
    expect(Number.isNaN(Date.parse(recorded))).toBe(false);
  });
});
