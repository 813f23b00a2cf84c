import { describe, expect, test } from "vitest";
import {
  createFakeLanguageServer,
  type FakeLanguageServer,
} from "../../../test/doubles/fake-language-server.ts";
import { ServiceError } from "../../errors.ts";
import { silentLogger } from "../../index.ts";
import type { ProcessRequest, SandboxRuntime } from "../../ports/sandbox-runtime.ts";
import { createLanguageServers, languageServersPerSession } from "./language-servers.ts";
import { languageServersPath } from "./languages.ts";

/** A runtime whose processes are fake language servers; it records what it was asked. */
function fakeRuntime(withProcesses = true) {
  const started: Array<{ id: string; request: ProcessRequest; server: FakeLanguageServer }> = [];
  const destroyed: string[] = [];
  const runtime: SandboxRuntime = {
    name: "local",
    create: async () => ({ podName: null, note: "" }),
    destroy: async (id) => {
      destroyed.push(id);
    },
    list: async () => [],
    exec: () => Promise.reject(new Error("not used")),
    files: () => {
      throw new Error("not used");
    },
    close: async () => {},
    ...(withProcesses && {
      spawnProcess: async (id: string, request: ProcessRequest) => {
        const server = createFakeLanguageServer();
        started.push({ id, request, server });
        return server.process;
      },
    }),
  };
  return { runtime, started, destroyed };
}

const errorOf = async (work: Promise<unknown>) => {
  const error = await work.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
};

describe("language servers by session", () => {
  test("a start runs the language's server from the read-only install and answers an lsp id", async () => {
    const { runtime, started } = fakeRuntime();
    const servers = createLanguageServers({ logger: silentLogger });
    const pythonId = await servers.start(runtime, "session-a", "python");
    const typescriptId = await servers.start(runtime, "session-a", "typescript");
    expect(pythonId).toMatch(/^lsp_[0-9a-f]{32}$/);
    expect(started.map((entry) => entry.request.command)).toEqual([
      ["/usr/bin/node", `${languageServersPath}/pyright/langserver.index.js`, "--stdio"],
      ["/usr/bin/node", `${languageServersPath}/typescript-language-server/lib/cli.mjs`, "--stdio"],
    ]);
    expect(servers.get("session-a", typescriptId)).toBeDefined();
    servers.close();
  });

  test(`a session runs at most ${languageServersPerSession}; stopping one frees its slot`, async () => {
    const { runtime } = fakeRuntime();
    const servers = createLanguageServers({ logger: silentLogger });
    const ids = await Promise.all(
      Array.from({ length: languageServersPerSession }, () => servers.start(runtime, "session-a", "python")),
    );
    const refused = await errorOf(servers.start(runtime, "session-a", "python"));
    expect(refused.code).toBe("lsp_limit_reached");
    expect(refused.details).toEqual({ limit: languageServersPerSession });
    // Another session has slots of its own.
    await servers.start(runtime, "session-b", "python");
    await servers.stop("session-a", ids[0] as string);
    await servers.start(runtime, "session-a", "javascript");
    servers.close();
  });

  test("parallel starts past the cap are refused, not all admitted", async () => {
    const { runtime } = fakeRuntime();
    const servers = createLanguageServers({ logger: silentLogger });
    const outcomes = await Promise.allSettled(
      Array.from({ length: languageServersPerSession + 2 }, () =>
        servers.start(runtime, "session-a", "python"),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(
      languageServersPerSession,
    );
    servers.close();
  });

  test("an unknown id and another session's id are both not_found", async () => {
    const { runtime } = fakeRuntime();
    const servers = createLanguageServers({ logger: silentLogger });
    const id = await servers.start(runtime, "session-a", "python");
    expect(() => servers.get("session-b", id)).toThrow(expect.objectContaining({ code: "not_found" }));
    expect(() => servers.get("session-a", `lsp_${"0".repeat(32)}`)).toThrow(
      expect.objectContaining({ code: "not_found" }),
    );
    expect((await errorOf(servers.stop("session-b", id))).code).toBe("not_found");
    servers.close();
  });

  test("an unknown language is 422 naming the supported ones", async () => {
    const { runtime, started } = fakeRuntime();
    const servers = createLanguageServers({ logger: silentLogger });
    const error = await errorOf(servers.start(runtime, "session-a", "cobol"));
    expect(error.code).toBe("validation_error");
    expect(JSON.stringify(error.details)).toContain("python, typescript, javascript");
    // Not a prototype key either.
    expect((await errorOf(servers.start(runtime, "session-a", "constructor"))).code).toBe("validation_error");
    expect(started).toHaveLength(0);
  });

  test("a runtime that cannot start processes answers 502", async () => {
    const { runtime } = fakeRuntime(false);
    const servers = createLanguageServers({ logger: silentLogger });
    const error = await errorOf(servers.start(runtime, "session-a", "python"));
    expect(error.code).toBe("sandbox_operation_failed");
    expect(error.message).toContain("not available on the local sandbox runtime");
  });

  test("destroying a sandbox through the wrapped runtime kills its servers, and only its", async () => {
    const { runtime, started, destroyed } = fakeRuntime();
    const servers = createLanguageServers({ logger: silentLogger });
    const wrapped = servers.endingWithSessions(runtime);
    await servers.start(wrapped, "session-a", "python");
    await servers.start(wrapped, "session-a", "typescript");
    const other = await servers.start(wrapped, "session-b", "python");
    await wrapped.destroy("session-a");
    expect(destroyed).toEqual(["session-a"]);
    expect(started.map((entry) => entry.server.killed)).toEqual([true, true, false]);
    expect(servers.count("session-a")).toBe(0);
    expect(servers.get("session-b", other)).toBeDefined();
    await wrapped.close();
    expect(started[2]?.server.killed).toBe(true);
    expect(servers.count("session-b")).toBe(0);
  });

  test("a server that exits by itself frees its slot", async () => {
    const { runtime, started } = fakeRuntime();
    const servers = createLanguageServers({ logger: silentLogger });
    const id = await servers.start(runtime, "session-a", "python");
    started[0]?.server.process.kill();
    await started[0]?.server.process.exited;
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(servers.count("session-a")).toBe(0);
    expect(() => servers.get("session-a", id)).toThrow(expect.objectContaining({ code: "not_found" }));
  });
});
