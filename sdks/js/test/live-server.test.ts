/**
 * The SDK against a live server: the conformance scenario (CONTRACT §7's story) under Node and
 * under Deno, `withSandbox`, the key routes, tools by name, and the error classes of real
 * refusals; then against a server with the example plugins, their tools through `callTool`.
 */
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, startLiveServer } from "../../../test/mcp/mcp-harness.ts";
import { withExamplePlugins } from "../../../test/support/example-plugins.ts";
import {
  CairnApiError,
  CairnClient,
  CapabilityDeniedError,
  type ExecEvent,
  type Memory,
  QuotaExceededError,
} from "../src/index.ts";
import { runConformance } from "./conformance-runner.ts";

const root = resolve(import.meta.dirname, "../../..");
const run = promisify(execFile);

describe("cairn-client against a live server", () => {
  let server: LiveServer;
  let client: CairnClient;

  beforeAll(async () => {
    server = await startLiveServer({ SVC_AUTH_RATE_LIMIT_PER_MINUTE: "100" });
    const anonymous = new CairnClient({ baseUrl: server.baseUrl });
    const { access_token } = await anonymous.signup(
      `sdk-${crypto.randomUUID()}@example.com`,
      "sdk password 1",
    );
    const { key } = await anonymous.createApiKey(access_token, "sdk test");
    client = new CairnClient({ baseUrl: server.baseUrl, apiKey: key });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it("runs the conformance scenario", async () => {
    const scenario = await readFile(join(root, "test/conformance/scenario.json"), "utf8");
    const { ok, lines } = await runConformance(server.baseUrl, scenario);
    expect(lines.join("\n")).not.toContain("FAIL");
    expect(ok).toBe(true);
    expect(lines.length).toBe(JSON.parse(scenario).steps.length);
  }, 120_000);

  it("runs the conformance scenario under Deno", async () => {
    const { stdout } = await run(
      join(root, "node_modules/deno/deno"),
      ["run", "--allow-net", "--allow-read", join(root, "sdks/js/test/run-conformance.ts"), server.baseUrl],
      { timeout: 120_000 },
    );
    expect(stdout).not.toContain("FAIL");
    expect(stdout).toContain("ok destroy the second sandbox");
  }, 150_000);

  it("withSandbox destroys the sandbox after the work, even when the work throws", async () => {
    let id = "";
    const output = await client.withSandbox(async (sandbox) => {
      id = sandbox.id;
      await sandbox.fileCreate("hello.py", "print('hi from python')\n");
      return sandbox.exec("python3 hello.py");
    });
    expect(output.stdout).toBe("hi from python\n");
    expect((await client.getSandbox(id)).status).toBe("destroyed");

    const failure = client.withSandbox(async (sandbox) => {
      id = sandbox.id;
      throw new Error("the work failed");
    });
    await expect(failure).rejects.toThrow("the work failed");
    expect((await client.getSandbox(id)).status).toBe("destroyed");
  }, 60_000);

  it("streams an exec's output while it runs, then its exit; leaving the loop kills the command", async () => {
    await client.withSandbox(async (sandbox) => {
      const events: ExecEvent[] = [];
      for await (const event of sandbox.execStream(
        "echo first; while [ ! -e /workspace/go ]; do sleep 0.05; done; echo second >&2; exit 2",
        { timeout: 300 },
      )) {
        events.push(event);
        // The command cannot end before the marker exists, and it is made only after the first event.
        if (events.length === 1) expect((await sandbox.exec("touch /workspace/go")).exit_code).toBe(0);
      }
      expect(events.slice(0, 2)).toEqual([
        { type: "output", stdout_chunk: "first\n" },
        { type: "output", stdout_chunk: "", stderr_chunk: "second\n" },
      ]);
      expect(events[2]).toMatchObject({ type: "exit", exit_code: 2, timed_out: false, truncated: false });

      for await (const event of sandbox.execStream(
        "exec 9>/workspace/held; flock 9; echo holding; sleep 1000",
      )) {
        expect(event).toEqual({ type: "output", stdout_chunk: "holding\n" });
        break;
      }
      let free = 1;
      for (let attempt = 0; attempt < 100 && free !== 0; attempt++)
        free = (await sandbox.exec("flock -n /workspace/held true")).exit_code;
      expect(free).toBe(0);

      await expect(client.execStream("no-such-session", "true").next()).rejects.toBeInstanceOf(CairnApiError);
    });
  }, 60_000);

  it("uploads and downloads exact bytes: 50 MiB through the raw routes, a stream, and base64 files", async () => {
    const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
    await client.withSandbox(async (sandbox) => {
      const big = randomBytes(50 * 1024 * 1024);
      expect(await sandbox.uploadFile("big.bin", new Uint8Array(big))).toEqual({
        path: "/workspace/big.bin",
        size: big.length,
        created: true,
      });
      expect(sha256(await sandbox.downloadFile("big.bin"))).toBe(sha256(big));

      // A ReadableStream goes up as it is read; downloadFileStream gives the bytes as a stream.
      const parts = [randomBytes(300_000), randomBytes(5)];
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const part of parts) controller.enqueue(new Uint8Array(part));
          controller.close();
        },
      });
      expect((await sandbox.uploadFile("/tmp/streamed.bin", stream)).size).toBe(300_005);
      const downloaded = await sandbox.downloadFileStream("/tmp/streamed.bin");
      expect(downloaded.size).toBe(300_005);
      const body = new Uint8Array(await new Response(downloaded.stream).arrayBuffer());
      expect(sha256(body)).toBe(sha256(Buffer.concat(parts)));

      const small = randomBytes(1000);
      expect((await sandbox.fileCreate("small.bin", new Uint8Array(small))).size).toBe(1000);
      const viewed = await sandbox.view("small.bin", { encoding: "base64" });
      expect([viewed.encoding, Buffer.from(viewed.content, "base64").equals(small)]).toEqual([
        "base64",
        true,
      ]);
      const refused = await sandbox.view("small.bin").catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(CairnApiError);
      expect((refused as CairnApiError).code).toBe("file_not_utf8");
      const outside = await sandbox.downloadFile("/etc/passwd").catch((error: unknown) => error);
      expect(outside).toBeInstanceOf(CapabilityDeniedError);
    });
  }, 120_000);

  it("lists and revokes API keys with the dashboard token", async () => {
    const anonymous = new CairnClient({ baseUrl: server.baseUrl });
    const email = `keys-${crypto.randomUUID()}@example.com`;
    await anonymous.signup(email, "sdk password 2");
    const { access_token } = await anonymous.login(email, "sdk password 2");
    const created = await anonymous.createApiKey(access_token, "to revoke");
    expect((await anonymous.listApiKeys(access_token)).map((key) => key.id)).toContain(created.id);
    await anonymous.revokeApiKey(access_token, created.id);
    const revoked = new CairnClient({ baseUrl: server.baseUrl, apiKey: created.key });
    const refusal = await revoked.account().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(CairnApiError);
    expect(refusal).toMatchObject({
      statusCode: 401,
      code: "invalid_api_key",
      retryable: false,
      apiErrorType: null,
    });
  });

  it("lists the tools and calls built-in ones by name", async () => {
    const { tools } = await client.listTools();
    const recall = tools.find((tool) => tool.name === "recall");
    expect(recall).toMatchObject({ plugin: null, annotations: { read_only: true } });
    expect(recall?.input_schema).toMatchObject({ type: "object", properties: { q: {} } });

    const stored = await client.callTool<Memory>("remember", { content: "Tools answer by their name." });
    const found = await client.callTool<{ memories: Memory[] }>("recall", { q: "answer by name", limit: 3 });
    expect(found.memories.map((memory) => memory.id)).toEqual([stored.id]);
    // A route that answers 204 answers {} through the tool route.
    expect(await client.callTool("forget_memory", { memory_id: stored.id })).toEqual({});

    const idempotencyKey = crypto.randomUUID();
    const first = await client.callTool<Memory>(
      "remember",
      { content: "Replayed once." },
      { idempotencyKey },
    );
    const again = await client.callTool<Memory>(
      "remember",
      { content: "Replayed once." },
      { idempotencyKey },
    );
    expect(again).toEqual(first);
    const reuse = await client
      .callTool("remember", { content: "Another body." }, { idempotencyKey })
      .catch((error: unknown) => error);
    expect(reuse).toMatchObject({ statusCode: 422, code: "idempotency_key_reuse" });

    const unknown = await client.callTool("no_such_tool").catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(CairnApiError);
    expect(unknown).toMatchObject({ statusCode: 404, code: "not_found" });
    const invalid = await client.callTool("recall", { q: "" }).catch((error: unknown) => error);
    expect(invalid).toMatchObject({ statusCode: 422, code: "validation_error" });
  });

  it("turns the server's refusals into typed errors", async () => {
    const validation = await client.recall("", { limit: 1000 }).catch((error: unknown) => error);
    expect(validation).toMatchObject({ statusCode: 422, code: "validation_error", retryable: false });
    expect((validation as CairnApiError).details).toBeInstanceOf(Array);
    expect((validation as CairnApiError).requestId).toMatch(/^[0-9a-f]{32}$/);

    await client.setAllowedCommands(["echo"]);
    const denied = await client
      .withSandbox((sandbox) => sandbox.exec("ls /"))
      .catch((error: unknown) => error);
    await client.clearAllowedCommands();
    expect(denied).toBeInstanceOf(CapabilityDeniedError);
    expect(denied).toMatchObject({ code: "command_not_allowed", apiErrorType: "capability_denied" });

    const sandboxes = await client.createSandboxes(2);
    const third = await client.createSandbox().catch((error: unknown) => error);
    await Promise.all(sandboxes.map((sandbox) => client.destroySandbox(sandbox.id)));
    expect(third).toBeInstanceOf(QuotaExceededError);
    expect(third).toMatchObject({ statusCode: 429, details: { limit: 2, active: 2 }, retryable: false });
  }, 60_000);
});

describe("cairn-client against a live server with the example plugins", () => {
  let server: LiveServer;
  let client: CairnClient;

  beforeAll(async () => {
    server = await startLiveServer(withExamplePlugins);
    const anonymous = new CairnClient({ baseUrl: server.baseUrl });
    const { access_token } = await anonymous.signup(
      `sdk-plugins-${crypto.randomUUID()}@example.com`,
      "sdk password 3",
    );
    const { key } = await anonymous.createApiKey(access_token, "sdk plugin test");
    client = new CairnClient({ baseUrl: server.baseUrl, apiKey: key });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it("lists the plugins' tools beside the built-in ones", async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get("todo.add")).toMatchObject({ plugin: "todo", mcp_name: "todo__add" });
    expect(byName.get("session-journal.recent")).toMatchObject({
      plugin: "session-journal",
      mcp_name: "session_journal__recent",
    });
    expect(byName.get("recall")?.plugin).toBeNull();
  });

  it("calls a plugin's tools by name, with its refusals as the SDK's errors", async () => {
    type Task = { id: string; text: string; done: boolean };
    const added = await client.callTool<Task>("todo.add", { text: "Ship the SDK release" });
    expect(added).toMatchObject({ text: "Ship the SDK release", done: false });
    const { tasks } = await client.callTool<{ tasks: Task[] }>("todo.list");
    expect(tasks.map((task) => task.id)).toEqual([added.id]);
    expect(await client.callTool<Task>("todo.done", { id: added.id })).toMatchObject({ done: true });
    const missing = await client.callTool("todo.done", { id: "t-none" }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(CairnApiError);
    expect(missing).toMatchObject({ statusCode: 404, code: "not_found", message: "No such task" });
    const { sessions } = await client.callTool<{ sessions: unknown[] }>("session-journal.recent", {
      limit: 5,
    });
    expect(sessions).toEqual([]);
  });
});
