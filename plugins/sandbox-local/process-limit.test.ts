/**
 * A sandbox whose own processes hold every process slot its size allows: the next exec cannot
 * start, and that is the caller's limit (429 sandbox_process_limit_reached, naming the limit),
 * not a runtime failure. It was answered 502 sandbox_operation_failed and logged as a server
 * error: the session helper's own fork failed with EAGAIN before the command ran. Real
 * bubblewrap, with cgroups (pids.max) and without them (RLIMIT_NPROC of the session's uid).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceError } from "../../core/index.ts";
import { createTestRuntime, eventually, type TestRuntime } from "../../test/support/local-sandbox-runtime.ts";
import { defaultSizeLimits } from "./sizes.ts";

/**
 * One exec takes every process slot of a sandbox and holds them (a subshell forks until the limit
 * refuses it; its sleeps stay, and the slot it frees is taken by one more), then says so in a file;
 * the next exec cannot start. Once the first is aborted the sandbox runs commands again.
 */
async function expectProcessLimitReached(testRuntime: TestRuntime, limit: number) {
  const id = await testRuntime.createSandbox();
  const holder = new AbortController();
  const holding = testRuntime.runtime.exec(id, {
    command: "(while :; do sleep 1000 & done) 2>/dev/null; sleep 1000 & : > /workspace/full; wait",
    timeoutSeconds: 100,
    signal: holder.signal,
  });
  holding.catch(() => {});
  expect(await eventually(async () => existsSync(join(testRuntime.hostWorkspace(id), "full")))).toBe(true);
  const refused = await testRuntime.run(id, "echo started").then(
    () => null,
    (error: unknown) => error,
  );
  expect(refused).toBeInstanceOf(ServiceError);
  expect(refused).toMatchObject({
    code: "sandbox_process_limit_reached",
    details: { limit, size: "small" },
  });
  expect((refused as ServiceError).remediation).toContain(`at most ${limit} processes`);
  holder.abort(new Error("done holding"));
  await expect(holding).rejects.toThrow("done holding");
  expect((await testRuntime.run(id, "echo started")).stdout).toBe("started\n");
}

describe("an exec the sandbox's full process limit cannot start", () => {
  describe("with cgroups (pids.max)", () => {
    let test: TestRuntime;
    beforeAll(async () => {
      test = await createTestRuntime({ sizes: { small: { maxProcesses: 32 } } });
    });
    afterAll(() => test.cleanUp());

    it("is answered sandbox_process_limit_reached with the size's limit", async () => {
      await expectProcessLimitReached(test, 32);
    });
  });

  describe("without cgroups (RLIMIT_NPROC)", () => {
    let test: TestRuntime;
    beforeAll(async () => {
      test = await createTestRuntime({ useCgroups: false });
    });
    afterAll(() => test.cleanUp());

    it("is answered sandbox_process_limit_reached with the size's limit", async () => {
      await expectProcessLimitReached(test, defaultSizeLimits.small.maxProcesses);
    });
  });
});
