import { describe, expect, test } from "vitest";
import { createFakeLanguageServer } from "../../../test/doubles/fake-language-server.ts";
import { fileUri, startLanguageClient } from "./language-client.ts";

const options = {
  languageIdOf: () => "typescript",
  requestTimeoutMs: 5_000,
  initializeTimeoutMs: 5_000,
  shutdownGraceMs: 100,
};

describe("the language client", () => {
  test("initializes for /workspace without snippets, then sends initialized", async () => {
    const server = createFakeLanguageServer();
    await startLanguageClient(server.process, options);
    const initialize = await server.waitFor((message) => message.method === "initialize");
    expect(initialize.params).toMatchObject({
      rootUri: "file:///workspace",
      capabilities: { textDocument: { completion: { completionItem: { snippetSupport: false } } } },
    });
    await server.waitFor((message) => message.method === "initialized");
  });

  test("opens a document once, then replaces its whole text with increasing versions", async () => {
    const server = createFakeLanguageServer();
    const client = await startLanguageClient(server.process, options);
    await client.open("/workspace/a b.ts", "const s = 1;");
    await client.open("/workspace/a b.ts", 'const s = "x"; s.');
    await client.open("/workspace/a b.ts", "let t;");
    await server.waitFor(
      (message) =>
        message.method === "textDocument/didChange" && JSON.stringify(message.params).includes("let t;"),
    );
    const sync = server.received.filter((message) => message.method?.startsWith("textDocument/did"));
    expect(sync).toEqual([
      expect.objectContaining({
        method: "textDocument/didOpen",
        params: {
          textDocument: {
            uri: "file:///workspace/a%20b.ts",
            languageId: "typescript",
            version: 1,
            text: "const s = 1;",
          },
        },
      }),
      expect.objectContaining({
        method: "textDocument/didChange",
        params: {
          textDocument: { uri: "file:///workspace/a%20b.ts", version: 2 },
          contentChanges: [{ text: 'const s = "x"; s.' }],
        },
      }),
      expect.objectContaining({
        method: "textDocument/didChange",
        params: {
          textDocument: { uri: "file:///workspace/a%20b.ts", version: 3 },
          contentChanges: [{ text: "let t;" }],
        },
      }),
    ]);
    expect(client.documentText("/workspace/a b.ts")).toBe("let t;");
    expect(client.documentText("/workspace/other.ts")).toBeUndefined();
  });

  test("completion asks at the 0-indexed position and returns raw items of a list or an array", async () => {
    let answer: unknown = { isIncomplete: true, items: [{ label: "path", kind: 9, extra: { x: 1 } }] };
    const server = createFakeLanguageServer({
      respond: (method) => (method === "textDocument/completion" ? answer : undefined),
    });
    const client = await startLanguageClient(server.process, options);
    await client.open("/workspace/a.py", "import os; os.");
    expect(await client.completion("/workspace/a.py", 0, 14)).toEqual([
      { label: "path", kind: 9, extra: { x: 1 } },
    ]);
    const request = await server.waitFor((message) => message.method === "textDocument/completion");
    expect(request.params).toMatchObject({
      textDocument: { uri: fileUri("/workspace/a.py") },
      position: { line: 0, character: 14 },
    });
    answer = [{ label: "getcwd", kind: 3 }];
    expect(await client.completion("/workspace/a.py", 0, 14)).toEqual([{ label: "getcwd", kind: 3 }]);
  });

  test("stop sends shutdown and exit and the server ends by itself", async () => {
    const server = createFakeLanguageServer();
    const client = await startLanguageClient(server.process, options);
    await client.stop();
    expect(server.received.map((message) => message.method)).toEqual(
      expect.arrayContaining(["shutdown", "exit"]),
    );
    expect(await client.exited).toBe(0);
    expect(server.killed).toBe(false);
  });

  test("a server that lingers after exit is killed after the grace period", async () => {
    const server = createFakeLanguageServer({ exitsOnExit: false });
    const client = await startLanguageClient(server.process, options);
    await client.stop();
    expect(server.killed).toBe(true);
    expect(await client.exited).toBeNull();
  });

  test("a server that does not initialize in time is killed", async () => {
    const server = createFakeLanguageServer({ unanswered: ["initialize"] });
    const started = startLanguageClient(server.process, { ...options, initializeTimeoutMs: 50 });
    await expect(started).rejects.toMatchObject({ reason: "timeout" });
    expect(server.killed).toBe(true);
  });
});
