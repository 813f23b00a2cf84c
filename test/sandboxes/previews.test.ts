/**
 * Previews of ports in real local sandboxes (docs/sandboxes.md#previews): a web server started in
 * the background is reached through its preview URL, over HTTP and a WebSocket, served by a real
 * Node server with the upgrade glue; not after revoke or destroy, nor with another account's ids;
 * and from inside the sandbox neither the preview URL's host nor the control plane is reachable.
 */
import { CairnClient } from "cairn-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestPlatform } from "../support/platforms.ts";
import { echoServerSource, openSocket, serveOverNode } from "./preview-terminal-support.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  type SandboxClient,
} from "./sandbox-client.ts";

interface PreviewOut {
  url: string;
  expires_at: string;
  token_id: string;
  port: number;
}

describe("previews of sandbox ports", () => {
  let test: TestPlatform;
  let client: SandboxClient;
  let other: SandboxClient;
  let served: Awaited<ReturnType<typeof serveOverNode>>;
  let sessionId: string;
  const port = 8765;

  /** The preview URL on the test server (the URL names the configured host and port). */
  const onServer = (url: string) => `${served.origin}${new URL(url).pathname}`;
  const preview = (json: Record<string, unknown> = {}, id = sessionId, as = client) =>
    as.sendJson<PreviewOut>(`/v1/sandboxes/${id}/preview/${port}`, { method: "POST", json });

  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite");
    client = await createSandboxClient(test);
    other = await createSandboxClient(test);
    served = await serveOverNode(test);
    sessionId = (await client.createActive()).id;
    const written = await client.sendJson(`/v1/sandboxes/${sessionId}/files`, {
      method: "POST",
      json: { path: "echo-server.js", content: echoServerSource },
    });
    expect(written.status).toBe(200);
    const started = await client.sendJson<{ process_id: string }>(`/v1/sandboxes/${sessionId}/processes`, {
      method: "POST",
      json: { command: `node echo-server.js ${port}` },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const ready = await client.sendJson<{ stdout: string }>(
      `/v1/sandboxes/${sessionId}/processes/${started.body.process_id}/output?since_offset=0&wait_seconds=10`,
    );
    expect(ready.body.stdout).toContain("listening");
  }, 120_000);
  afterAll(async () => {
    await served?.close();
    await test?.close();
  });

  it("reaches the server over HTTP, a body both ways, and lists the link", { timeout: 60_000 }, async () => {
    const created = await preview({ ttl_seconds: 120 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.url).toMatch(/\/v1\/previews\/[A-Za-z0-9_-]{43}\/$/);
    const page = await fetch(`${onServer(created.body.url)}a/b?c=1`);
    expect([page.status, await page.text()]).toEqual([200, `hello from ${port} GET /a/b?c=1`]);
    const posted = await fetch(onServer(created.body.url), { method: "POST", body: "ping" });
    expect(await posted.text()).toBe(`hello from ${port} POST / body=ping`);
    // The app's own Authorization reaches it; a Cairn API key sent by habit does not.
    const withAuth = (value: string) =>
      fetch(onServer(created.body.url), { headers: { authorization: value } });
    expect(await (await withAuth("Bearer app-token")).text()).toBe(
      `hello from ${port} GET / auth=Bearer app-token`,
    );
    expect(await (await withAuth(`Bearer ${client.key}`)).text()).toBe(`hello from ${port} GET /`);
    // Through the app alone too (no server): the route is an ordinary one.
    const inProcess = await test.request(new URL(created.body.url).pathname);
    expect(await inProcess.text()).toBe(`hello from ${port} GET /`);
    const listed = await client.sendJson<{ previews: Array<{ token_id: string }> }>(
      `/v1/sandboxes/${sessionId}/previews`,
    );
    expect(listed.body.previews.map((entry) => entry.token_id)).toContain(created.body.token_id);
  });

  it("carries a WebSocket to the server in the sandbox", { timeout: 60_000 }, async () => {
    const created = await preview();
    const socket = openSocket(onServer(created.body.url).replace("http:", "ws:"));
    await socket.opened;
    socket.socket.send("hi there");
    await socket.waitFor(/echo: hi there/);
    socket.socket.close();
  });

  it("is 404 after revoke (idempotent), with a made-up token, and for another account", {
    timeout: 60_000,
  }, async () => {
    const created = await preview();
    const revoke = () =>
      client.sendJson(`/v1/sandboxes/${sessionId}/preview/${port}/revoke`, {
        method: "POST",
        json: { token_id: created.body.token_id },
      });
    expect((await revoke()).status).toBe(200);
    expect((await revoke()).status).toBe(200);
    const after = await fetch(onServer(created.body.url));
    expect([after.status, errorCode(await after.json())]).toEqual([404, "not_found"]);
    const madeUp = await fetch(`${served.origin}/v1/previews/${"A".repeat(43)}/`);
    expect(madeUp.status).toBe(404);
    const socket = openSocket(onServer(created.body.url).replace("http:", "ws:"));
    await expect(socket.opened).rejects.toThrow(/404/);
    const foreign = await preview({}, sessionId, other);
    expect([foreign.status, errorCode(foreign.body)]).toEqual([404, "not_found"]);
    const validation = await client.sendJson(`/v1/sandboxes/${sessionId}/preview/70000`, {
      method: "POST",
      json: {},
    });
    expect(validation.status).toBe(422);
  });

  it("leaves the sandbox without a route to the preview host or the control plane", {
    timeout: 60_000,
  }, async () => {
    const created = await preview();
    const address = new URL(served.origin);
    const probe = await client.exec(
      sessionId,
      `node -e 'const net=require("net");const s=net.connect(${address.port},"${address.hostname}");s.on("connect",()=>{console.log("REACHED");process.exit(0)});s.on("error",e=>{console.log("refused",e.code);process.exit(0)})'; ` +
        `python3 -c 'import urllib.request as u
try:
  u.urlopen("${created.body.url}", timeout=3); print("REACHED")
except Exception as e: print("failed", type(e).__name__)'`,
      30,
    );
    expect(probe.body.stdout).not.toContain("REACHED");
    expect(probe.body.stdout).toContain("refused");
  });

  it("is reached with the JavaScript SDK's preview, revokePreview and takeoverToken", {
    timeout: 60_000,
  }, async () => {
    const sdk = new CairnClient({ baseUrl: served.origin, apiKey: client.key });
    const created = await sdk.preview(sessionId, port, { ttlSeconds: 60 });
    expect(await (await fetch(onServer(created.url))).text()).toBe(`hello from ${port} GET /`);
    expect((await sdk.listPreviews(sessionId)).previews.map((entry) => entry.token_id)).toContain(
      created.token_id,
    );
    expect(await sdk.revokePreview(sessionId, port, created.token_id)).toEqual({ revoked: true });
    expect((await fetch(onServer(created.url))).status).toBe(404);
    const { token } = await sdk.takeoverToken(sessionId, { readOnly: true });
    expect(sdk.takeoverUrl(sessionId, token, { rows: 10 })).toBe(
      `${served.origin.replace("http:", "ws:")}/v1/sandboxes/${sessionId}/takeover?token=${token}&rows=10`,
    );
  });

  it("is 404 once the sandbox is destroyed", { timeout: 60_000 }, async () => {
    const created = await preview();
    expect((await fetch(onServer(created.body.url))).status).toBe(200);
    expect((await client.destroy(sessionId)).status).toBe(204);
    const after = await fetch(onServer(created.body.url));
    expect(after.status).toBe(404);
  });
});

describe("previews on their own host (SVC_PREVIEW_DOMAIN)", () => {
  let test: TestPlatform;
  let client: SandboxClient;
  afterAll(() => test?.close());

  it("answers at {port}-{id}.<domain>/{token}/ and only for the link's own port and sandbox", {
    timeout: 120_000,
  }, async () => {
    test = await createSandboxPlatform("sqlite", {
      environment: {
        SVC_PREVIEW_DOMAIN: "preview.example.test",
        SVC_PUBLIC_URL: "https://cairn.example.test",
      },
    });
    client = await createSandboxClient(test);
    const id = (await client.createActive()).id;
    await client.sendJson(`/v1/sandboxes/${id}/files`, {
      method: "POST",
      json: { path: "echo-server.js", content: echoServerSource },
    });
    const started = await client.sendJson<{ process_id: string }>(`/v1/sandboxes/${id}/processes`, {
      method: "POST",
      json: { command: "node echo-server.js 8770" },
    });
    // The server says when it listens (the output's long poll answers once it has printed).
    const ready = await client.sendJson<{ stdout: string }>(
      `/v1/sandboxes/${id}/processes/${started.body.process_id}/output?since_offset=0&wait_seconds=10`,
    );
    expect(ready.body.stdout).toContain("listening");
    const created = await client.sendJson<PreviewOut>(`/v1/sandboxes/${id}/preview/8770`, {
      method: "POST",
      json: {},
    });
    const url = new URL(created.body.url);
    expect(url.origin).toBe(`https://8770-${id}.preview.example.test`);
    const viaHost = (host: string) =>
      test.app.fetch(new Request(`http://${host}${url.pathname}x?y=1`, { headers: { host } }));
    const answer = await viaHost(url.host);
    expect(await answer.text()).toBe("hello from 8770 GET /x?y=1");
    expect((await viaHost(`8771-${id}.preview.example.test`)).status).toBe(404);
  });
});
