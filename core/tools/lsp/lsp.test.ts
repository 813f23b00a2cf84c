/**
 * The four LSP operations over REST on a runtime whose processes are fake language servers: the
 * wire shapes, the cap, tenancy, bad input, SVC_LSP_ENABLED=false and servers ending with their
 * session. test/sandboxes/lsp.test.ts runs the real servers in real sandboxes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createFakeFileSystem } from "../../../test/doubles/fake-file-system.ts";
import {
  createFakeLanguageServer,
  type FakeLanguageServer,
} from "../../../test/doubles/fake-language-server.ts";
import {
  createAccountWithKey,
  createTestPlatform,
  type TestPlatform,
} from "../../../test/support/platforms.ts";
import type { SandboxRuntime } from "../../ports/sandbox-runtime.ts";

function fakeRuntime() {
  const servers: FakeLanguageServer[] = [];
  const runtime: SandboxRuntime = {
    name: "local",
    create: async () => ({ podName: null, note: "" }),
    destroy: async () => {},
    list: async () => [],
    exec: () => Promise.reject(new Error("not used")),
    files: () => createFakeFileSystem({ roots: ["/workspace", "/tmp"] }),
    close: async () => {},
    spawnProcess: async () => {
      const server = createFakeLanguageServer({
        respond: (method) =>
          method === "textDocument/completion"
            ? { isIncomplete: false, items: [{ label: "toUpperCase", kind: 2, sortText: "11" }] }
            : undefined,
      });
      servers.push(server);
      return server.process;
    },
  };
  return { runtime, servers };
}

const errorOf = async (response: Response) => ({
  status: response.status,
  ...((await response.json()) as { error: { code: string; message: string; details?: unknown } }).error,
});

describe("LSP operations", () => {
  let test: TestPlatform;
  let fake: ReturnType<typeof fakeRuntime>;
  let key: string;
  const post = (path: string, json: unknown = {}, credential = key) =>
    test.request(path, { method: "POST", json, credential });
  const createSandbox = async () => {
    const response = await post("/v1/sandboxes", {});
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: string }).id;
  };

  beforeAll(async () => {
    fake = fakeRuntime();
    test = await createTestPlatform("sqlite", { sandboxRuntime: fake.runtime });
  });
  // A fresh account per test: an account runs at most two sandboxes at once.
  beforeEach(async () => {
    key = (await createAccountWithKey(test)).key;
  });
  afterAll(() => test.close());

  it("starts, opens, completes with raw items and stops", async () => {
    const session = await createSandbox();
    const started = await post(`/v1/sandboxes/${session}/lsp/start`, { language: "typescript" });
    expect(started.status).toBe(200);
    const { lsp_id } = (await started.json()) as { lsp_id: string };
    expect(lsp_id).toMatch(/^lsp_[0-9a-f]{32}$/);
    const base = `/v1/sandboxes/${session}/lsp/${lsp_id}`;
    const opened = await post(`${base}/open`, { path: "a.ts", content: 'const s = "x"; s.' });
    expect(await opened.json()).toEqual({ status: "opened" });
    const completion = await post(`${base}/completion`, { path: "/workspace/a.ts", line: 0, character: 17 });
    expect(completion.status).toBe(200);
    expect(await completion.json()).toEqual({ items: [{ label: "toUpperCase", kind: 2, sortText: "11" }] });
    const request = fake.servers
      .at(-1)
      ?.received.find((message) => message.method === "textDocument/completion");
    expect(request?.params).toMatchObject({
      textDocument: { uri: "file:///workspace/a.ts" },
      position: { line: 0, character: 17 },
    });
    expect(await (await post(`${base}/stop`)).json()).toEqual({ status: "stopped" });
    expect(
      await errorOf(await post(`${base}/completion`, { path: "a.ts", line: 0, character: 0 })),
    ).toMatchObject({
      status: 404,
      code: "not_found",
    });
  });

  it("refuses a fifth server with 429 lsp_limit_reached and its limit", async () => {
    const session = await createSandbox();
    for (let index = 0; index < 4; index++) {
      expect((await post(`/v1/sandboxes/${session}/lsp/start`, { language: "python" })).status).toBe(200);
    }
    const refused = await errorOf(await post(`/v1/sandboxes/${session}/lsp/start`, { language: "python" }));
    expect(refused).toMatchObject({ status: 429, code: "lsp_limit_reached", details: { limit: 4 } });
    expect(
      (await test.request(`/v1/sandboxes/${session}`, { method: "DELETE", credential: key })).status,
    ).toBe(204);
    expect(test.platform.languageServers.count(session)).toBe(0);
    expect(fake.servers.slice(-4).every((server) => server.killed)).toBe(true);
  });

  it("answers bad input with the contract's errors", async () => {
    const session = await createSandbox();
    const unknown = await errorOf(await post(`/v1/sandboxes/${session}/lsp/start`, { language: "cobol" }));
    expect(unknown).toMatchObject({ status: 422, code: "validation_error" });
    expect(JSON.stringify(unknown.details)).toContain("python, typescript, javascript");
    expect(await errorOf(await post(`/v1/sandboxes/${session}/lsp/start`, { language: "" }))).toMatchObject({
      status: 422,
    });
    const { lsp_id } = (await (
      await post(`/v1/sandboxes/${session}/lsp/start`, { language: "python" })
    ).json()) as {
      lsp_id: string;
    };
    const base = `/v1/sandboxes/${session}/lsp/${lsp_id}`;
    const unopened = await errorOf(await post(`${base}/completion`, { path: "a.py", line: 0, character: 0 }));
    expect(unopened).toMatchObject({ status: 422, code: "validation_error" });
    await post(`${base}/open`, { path: "a.py", content: "import os; os.\n" });
    for (const [line, character, field] of [
      [2, 0, "line"],
      [0, 15, "character"],
    ] as const) {
      const outside = await errorOf(await post(`${base}/completion`, { path: "a.py", line, character }));
      expect(outside).toMatchObject({
        status: 422,
        details: [expect.objectContaining({ loc: ["body", field] })],
      });
    }
    expect(
      await errorOf(await post(`${base}/completion`, { path: "a.py", line: -1, character: 0 })),
    ).toMatchObject({
      status: 422,
    });
    expect(await errorOf(await post(`${base}/open`, { path: "../../etc/x.py", content: "" }))).toMatchObject({
      status: 403,
      code: "path_outside_sandbox",
    });
  });

  it("hides another session's and another account's servers behind 404", async () => {
    const session = await createSandbox();
    const other = await createSandbox();
    const { lsp_id } = (await (
      await post(`/v1/sandboxes/${session}/lsp/start`, { language: "python" })
    ).json()) as {
      lsp_id: string;
    };
    expect(await errorOf(await post(`/v1/sandboxes/${other}/lsp/${lsp_id}/stop`))).toMatchObject({
      status: 404,
      code: "not_found",
    });
    const stranger = (await createAccountWithKey(test)).key;
    expect(
      await errorOf(await post(`/v1/sandboxes/${session}/lsp/${lsp_id}/stop`, {}, stranger)),
    ).toMatchObject({
      status: 404,
      code: "not_found",
    });
    expect(
      await errorOf(await post(`/v1/sandboxes/${crypto.randomUUID()}/lsp/start`, { language: "python" })),
    ).toMatchObject({ status: 404, code: "not_found" });
  });
});

describe("with SVC_LSP_ENABLED=false", () => {
  let test: TestPlatform;
  beforeAll(async () => {
    test = await createTestPlatform("sqlite", {
      sandboxRuntime: fakeRuntime().runtime,
      environment: { SVC_LSP_ENABLED: "false" },
    });
  });
  afterAll(() => test.close());

  it("answers 404 not_found on every LSP route", async () => {
    const { key } = await createAccountWithKey(test);
    const created = await test.request("/v1/sandboxes", { method: "POST", json: {}, credential: key });
    const { id } = (await created.json()) as { id: string };
    const lspId = `lsp_${"a".repeat(32)}`;
    for (const [path, json] of [
      ["lsp/start", { language: "python" }],
      [`lsp/${lspId}/open`, { path: "a.py", content: "" }],
      [`lsp/${lspId}/completion`, { path: "a.py", line: 0, character: 0 }],
      [`lsp/${lspId}/stop`, {}],
    ] as const) {
      const response = await test.request(`/v1/sandboxes/${id}/${path}`, {
        method: "POST",
        json,
        credential: key,
      });
      expect(await errorOf(response)).toMatchObject({ status: 404, code: "not_found" });
    }
  });
});
