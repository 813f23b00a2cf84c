/**
 * The same app served by Deno (the npm `deno` package) does signup → API key → whoami → a
 * sandbox, on the embedded SQLite database (better-sqlite3's prebuilt addon loads under Deno),
 * and serves /mcp to the SDK's client, with an open session when it stops.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultMountDirectory } from "../../plugins/sandbox-local/session-disk.ts";
import { mcpTools } from "../../transports/mcp/tools.ts";
import { httpTransport } from "../mcp/mcp-harness.ts";
import { echoServerSource, openSocket } from "../sandboxes/preview-terminal-support.ts";
import { type RunningServer, startServer } from "../support/processes.ts";

const root = resolve(import.meta.dirname, "../..");

describe("Deno runtime", () => {
  let server: RunningServer;
  let dataDir: string;
  let key: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "cairn-deno-"));
    server = await startServer(
      join(root, "node_modules/deno/deno"),
      [
        "run",
        // The server spawns bubblewrap and reads /proc: it needs every permission.
        "--allow-all",
        "--unstable-no-legacy-abort",
        join(root, "platform/serve-deno.ts"),
      ],
      { SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: "warn" },
    );
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("signs up, creates a key, answers whoami and runs a sandbox", async () => {
    const email = `deno-${crypto.randomUUID()}@example.com`;
    const signup = await fetch(`${server.baseUrl}/v1/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: "deno password" }),
    });
    expect(signup.status).toBe(201);
    const { access_token: token } = (await signup.json()) as { access_token: string };
    const created = await fetch(`${server.baseUrl}/v1/api-keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "deno" }),
    });
    expect(created.status).toBe(201);
    key = ((await created.json()) as { key: string }).key;
    const whoami = await fetch(`${server.baseUrl}/v1/account`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(whoami.status).toBe(200);
    expect(((await whoami.json()) as { email: string }).email).toBe(email);
    expect(server.output()).not.toContain(key);

    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const sandbox = await fetch(`${server.baseUrl}/v1/sandboxes`, { method: "POST", headers, body: "{}" });
    expect(sandbox.status).toBe(201);
    const { id } = (await sandbox.json()) as { id: string };
    const ran = await fetch(`${server.baseUrl}/v1/sandboxes/${id}/exec`, {
      method: "POST",
      headers,
      body: JSON.stringify({ command: "echo from-deno && echo hi > /workspace/found.txt" }),
    });
    expect(await ran.json()).toMatchObject({ exit_code: 0, stdout: "from-deno\n" });
    // Reads, listings and walks run on the file thread (plugins/sandbox-local/file-thread.ts).
    const glob = await fetch(`${server.baseUrl}/v1/sandboxes/${id}/files/glob`, {
      method: "POST",
      headers,
      body: JSON.stringify({ pattern: "**/*.txt" }),
    });
    expect(glob.status).toBe(200);
    expect(await glob.json()).toMatchObject({ matches: [{ path: "/workspace/found.txt", size: 3 }] });
    expect((await fetch(`${server.baseUrl}/v1/sandboxes/${id}`, { method: "DELETE", headers })).status).toBe(
      204,
    );
  });

  it("serves the MCP tools at /mcp", async () => {
    const client = new Client({ name: "deno-test", version: "1" });
    await client.connect(httpTransport(server.baseUrl, key));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(
      mcpTools().map((tool) => tool.name),
    );
    const remembered = await client.callTool({
      name: "remember",
      arguments: { content: "Deno serves MCP too." },
    });
    expect(remembered.isError).toBeFalsy();
    expect(remembered.structuredContent).toMatchObject({ content: "Deno serves MCP too." });
    // The session stays open: stopping the server below must not wait on its event stream.
  });

  it("serves Prometheus metrics, with the process metrics, and the /docs viewer's assets", async () => {
    const metrics = await fetch(`${server.baseUrl}/metrics`);
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(text).toMatch(
      /^cairn_http_requests_total\{method="POST",route="\/v1\/auth\/signup",status="201"\} 1$/m,
    );
    expect(text).toMatch(/^process_resident_memory_bytes \d/m);
    const bundle = await fetch(`${server.baseUrl}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect((await bundle.text()).length).toBeGreaterThan(1_000_000);
  });

  it("serves the takeover terminal's WebSocket and a preview's HTTP and WebSocket", {
    timeout: 60_000,
  }, async () => {
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const post = async (path: string, body: unknown) =>
      (
        await fetch(`${server.baseUrl}${path}`, { method: "POST", headers, body: JSON.stringify(body) })
      ).json();
    const { id } = (await post("/v1/sandboxes", {})) as { id: string };
    const { token } = (await post(`/v1/sandboxes/${id}/takeover-token`, {})) as { token: string };
    const socket = new WebSocket(
      `${server.baseUrl.replace("http:", "ws:")}/v1/sandboxes/${id}/takeover?token=${token}`,
    );
    socket.binaryType = "arraybuffer";
    let shown = "";
    socket.addEventListener("message", (event) => {
      shown += new TextDecoder().decode(event.data as ArrayBuffer);
    });
    await new Promise((resolve) => socket.addEventListener("open", resolve));
    socket.send(new TextEncoder().encode("echo deno-$((3*3))\n"));
    await expect.poll(() => shown, { timeout: 15_000 }).toContain("deno-9");
    socket.close();
    await post(`/v1/sandboxes/${id}/processes`, { command: "python3 -m http.server 8124 --bind 127.0.0.1" });
    const { url } = (await post(`/v1/sandboxes/${id}/preview/8124`, {})) as { url: string };
    await expect.poll(async () => (await fetch(url)).status, { timeout: 15_000 }).toBe(200);
    // A preview's WebSocket: Deno has no raw socket, so the server relays messages
    // (core/sandboxes/previews/websocket-relay.ts) to the echo server in the sandbox.
    await post(`/v1/sandboxes/${id}/files`, { path: "echo-server.js", content: echoServerSource });
    const echo = (await post(`/v1/sandboxes/${id}/processes`, { command: "node echo-server.js 8125" })) as {
      process_id: string;
    };
    const ready = await fetch(
      `${server.baseUrl}/v1/sandboxes/${id}/processes/${echo.process_id}/output?since_offset=0&wait_seconds=10`,
      { headers },
    );
    expect(((await ready.json()) as { stdout: string }).stdout).toContain("listening");
    const preview = (await post(`/v1/sandboxes/${id}/preview/8125`, {})) as { url: string };
    const relayed = openSocket(preview.url.replace(/^http/, "ws"));
    await relayed.opened;
    relayed.socket.send("through deno");
    expect(await relayed.waitFor(/echo: through deno/)).toBe("echo: through deno");
    relayed.socket.close(1000);
    expect((await relayed.closed).code).toBe(1000);
    await fetch(`${server.baseUrl}/v1/sandboxes/${id}`, { method: "DELETE", headers });
  });

  it("stops on SIGTERM with no sandbox disk left mounted", async () => {
    const mounts = defaultMountDirectory(dataDir);
    expect(await readFile("/proc/self/mountinfo", "utf8")).toContain(mounts);
    await server.stop();
    expect(server.process.exitCode).toBe(0);
    expect(await readFile("/proc/self/mountinfo", "utf8")).not.toContain(mounts);
  });
});
