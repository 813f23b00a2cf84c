/**
 * A language server the sandbox's full process limit cannot start is the caller's limit: 429
 * sandbox_process_limit_reached, naming the limit, as for an exec (plugins/sandbox-local/
 * process-limit.test.ts). It was a 502 sandbox_operation_failed: the session helper's fork failed
 * before the server ran, and the start saw only a closed connection. Real bubblewrap.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../core/index.ts";
import { createLanguageServers } from "../../core/sandboxes/lsp/language-servers.ts";
import { createTestRuntime, eventually, type TestRuntime } from "../support/local-sandbox-runtime.ts";

describe("a language server the sandbox's full process limit cannot start", () => {
  let test: TestRuntime;
  beforeAll(async () => {
    test = await createTestRuntime({ sizes: { small: { maxProcesses: 32 } } });
  });
  afterAll(() => test.cleanUp());

  it("is refused sandbox_process_limit_reached, and starts once the slots are free", async () => {
    const id = await test.createSandbox();
    const holder = new AbortController();
    const holding = test.runtime.exec(id, {
      command: "(while :; do sleep 1000 & done) 2>/dev/null; sleep 1000 & : > /workspace/full; wait",
      timeoutSeconds: 100,
      signal: holder.signal,
    });
    holding.catch(() => {});
    expect(await eventually(async () => existsSync(join(test.hostWorkspace(id), "full")))).toBe(true);
    const languageServers = createLanguageServers({ logger: silentLogger });
    try {
      const refused = await languageServers.start(test.runtime, id, "python").then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).toMatchObject({
        code: "sandbox_process_limit_reached",
        details: { limit: 32, size: "small" },
      });
      holder.abort(new Error("done holding"));
      await expect(holding).rejects.toThrow("done holding");
      const lspId = await languageServers.start(test.runtime, id, "python");
      expect(lspId).toMatch(/^lsp_/);
    } finally {
      languageServers.close();
    }
  });
});
