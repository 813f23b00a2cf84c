/**
 * Creates racing for the last slot, on both databases: the capacity check runs under a lock,
 * so exactly one of two concurrent POSTs wins, for the account's cap and the deployment's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeClock } from "../doubles/fake-clock.ts";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import { createSandboxClient, createSandboxPlatform, errorCode, errorDetails } from "./sandbox-client.ts";

describe.each(storageTargets)("racing creates on %s", (target) => {
  const clock = createFakeClock(new Date("2026-03-10T08:00:00Z"));
  let test: TestPlatform;

  beforeAll(async () => {
    test = await createSandboxPlatform(target, {
      clock,
      environment: { SVC_GLOBAL_MAX_CONCURRENT_SANDBOXES: "3" },
    });
  });
  afterAll(() => test.close());

  it("gives the account's last slot to exactly one of two concurrent creates", async () => {
    const client = await createSandboxClient(test);
    // A few rounds: one round could pass by luck of scheduling.
    for (let round = 1; round <= 3; round++) {
      await client.createActive();
      const [one, two] = await Promise.all([client.create(), client.create()]);
      expect([one.status, two.status].sort()).toEqual([201, 429]);
      const loser = one.status === 429 ? one : two;
      expect(errorCode(loser.body)).toBe("concurrent_sandbox_limit_reached");
      expect(errorDetails(loser.body)).toEqual({ limit: 2, active: 2 });
      const active = (await client.list(true)).body;
      expect(active).toHaveLength(2);
      expect((await client.usage()).body).toMatchObject({
        concurrent_sandboxes: 2,
        total_sandboxes_created: 2 * round,
      });
      for (const session of active) expect((await client.destroy(session.id)).status).toBe(204);
    }
  });

  it("caps the whole deployment across accounts, after each account's own cap", async () => {
    const [alice, bob] = await Promise.all([createSandboxClient(test), createSandboxClient(test)]);
    const aliceSessions = [await alice.createActive(), await alice.createActive()];
    await bob.createActive();

    const refused = await bob.create();
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: { code: "global_capacity_reached", retryable: true, details: { limit: 3, active: 3 } },
    });
    expect((await bob.list()).body).toHaveLength(1);
    // Alice is at her own cap as well: that answer comes first.
    expect(errorCode((await alice.create()).body)).toBe("concurrent_sandbox_limit_reached");

    // One slot frees up; two accounts race for it and exactly one gets it.
    expect((await alice.destroy(aliceSessions[0].id)).status).toBe(204);
    const [forAlice, forBob] = await Promise.all([alice.create(), bob.create()]);
    expect([forAlice.status, forBob.status].sort()).toEqual([201, 429]);
    const loser = forAlice.status === 429 ? forAlice : forBob;
    expect(errorCode(loser.body)).toBe("global_capacity_reached");
    const active = [...(await alice.list(true)).body, ...(await bob.list(true)).body];
    expect(active).toHaveLength(3);

    // Expired sessions hold no capacity, even before the reaper ends them.
    clock.advance(31 * 60_000);
    const [afterExpiry, second] = await Promise.all([bob.create(), alice.create()]);
    expect([afterExpiry.status, second.status]).toEqual([201, 201]);
  });
});
