import { describe, expect, test } from "vitest";
import { createFakeLanguageServer } from "../../../test/doubles/fake-language-server.ts";
import { createJsonRpcConnection, frameMessage, JsonRpcError } from "./json-rpc-connection.ts";

function connect(server: ReturnType<typeof createFakeLanguageServer>, requestTimeoutMs = 5_000) {
  return createJsonRpcConnection({
    input: server.process.stdout,
    output: server.process.stdin,
    requestTimeoutMs,
    answerServerRequest: (method, params) =>
      method === "workspace/configuration" ? (params as { items: unknown[] }).items.map(() => null) : null,
  });
}

describe("JSON-RPC over the LSP base protocol", () => {
  test("a response framed byte by byte, with multi-byte text, reaches its request", async () => {
    const server = createFakeLanguageServer({ respond: () => undefined });
    const connection = connect(server);
    const answer = connection.request("echo/slow", { text: "é" });
    const request = await server.waitFor((message) => message.method === "echo/slow");
    const bytes = frameMessage({ jsonrpc: "2.0", id: request.id, result: { text: "héllo — ✓" } });
    for (const byte of bytes) await server.sendBytes(new Uint8Array([byte]));
    await expect(answer).resolves.toEqual({ text: "héllo — ✓" });
    connection.close();
  });

  test("two messages in one chunk are both read", async () => {
    const server = createFakeLanguageServer({ respond: () => undefined });
    const connection = connect(server);
    const first = connection.request("a", null);
    const second = connection.request("b", null);
    await server.waitFor((message) => message.method === "b");
    const joined = [
      ...frameMessage({ jsonrpc: "2.0", id: 2, result: "B" }),
      ...frameMessage({ jsonrpc: "2.0", id: 1, result: "A" }),
    ];
    await server.sendBytes(new Uint8Array(joined));
    await expect(Promise.all([first, second])).resolves.toEqual(["A", "B"]);
    connection.close();
  });

  test("a request the server sends is answered, so the server does not block", async () => {
    const server = createFakeLanguageServer();
    const connection = connect(server);
    await server.send({ id: 7, method: "workspace/configuration", params: { items: [{}, {}] } });
    await server.send({ id: 8, method: "window/workDoneProgress/create", params: { token: "t" } });
    await server.send({ id: 9, method: "client/registerCapability", params: { registrations: [] } });
    expect((await server.waitFor((message) => message.id === 7 && !message.method)).result).toEqual([
      null,
      null,
    ]);
    expect((await server.waitFor((message) => message.id === 8 && !message.method)).result).toBeNull();
    expect((await server.waitFor((message) => message.id === 9 && !message.method)).result).toBeNull();
    connection.close();
  });

  test("an error response rejects with its message and code", async () => {
    const server = createFakeLanguageServer({ respond: () => undefined });
    const connection = connect(server);
    const answer = connection.request("broken", null);
    const request = await server.waitFor((message) => message.method === "broken");
    await server.send({ id: request.id, error: { code: -32603, message: "no project" } });
    await expect(answer).rejects.toMatchObject({
      reason: "error_response",
      code: -32603,
      message: "no project",
    });
    connection.close();
  });

  test("an unanswered request fails after its timeout", async () => {
    const server = createFakeLanguageServer();
    const connection = connect(server, 50);
    const error = await connection.request("never/answered", null).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect((error as JsonRpcError).reason).toBe("timeout");
    connection.close();
  });

  test("pending requests fail when the server's output ends, and later ones at once", async () => {
    const server = createFakeLanguageServer();
    const connection = connect(server);
    const pending = connection.request("never/answered", null);
    await server.waitFor((message) => message.method === "never/answered");
    server.process.kill();
    await expect(pending).rejects.toMatchObject({ reason: "closed" });
    await connection.closed;
    await expect(connection.request("initialize", {})).rejects.toMatchObject({ reason: "closed" });
  });

  test("a message without Content-Length ends the connection", async () => {
    const server = createFakeLanguageServer();
    const connection = connect(server);
    const pending = connection.request("never/answered", null);
    await server.sendBytes(new TextEncoder().encode("Content-Type: x\r\n\r\n{}"));
    await expect(pending).rejects.toMatchObject({ reason: "closed" });
  });
});
