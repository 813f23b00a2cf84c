/**
 * Preview links held in the database (docs/sandboxes.md#previews), regression tests for links
 * that lived in one server process's memory: with two replicas on one PostgreSQL database and a
 * sandbox runtime both reach (as Kubernetes is), a link minted through one is served, listed and
 * revoked through the other, and a destroy through one ends it on the other; and a restarted
 * server, on either database, still serves the links minted before.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reconcileSandboxes, type SandboxRuntime } from "../../core/index.ts";
import { eventually } from "../support/eventually.ts";
import { createTestRuntime, type TestRuntime } from "../support/local-sandbox-runtime.ts";
import { createTestDatabase, storageTargets, type TestPlatform } from "../support/platforms.ts";
import { echoServerSource } from "./preview-terminal-support.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  type SandboxClient,
} from "./sandbox-client.ts";

const port = 8766;

/** Sends as the client's account to any replica (its key is in the shared database). */
async function sendAs(
  test: TestPlatform,
  key: string,
  path: string,
  init: { method?: string; json?: unknown } = {},
) {
  const response = await test.request(path, {
    method: init.method ?? "GET",
    json: init.json,
    credential: key,
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, checked field by field.
  return { status: response.status, body: (text ? JSON.parse(text) : null) as any };
}

/** Starts the echo server in the sandbox and waits until it listens. */
async function startEchoServer(test: TestPlatform, key: string, sessionId: string) {
  const written = await sendAs(test, key, `/v1/sandboxes/${sessionId}/files`, {
    method: "POST",
    json: { path: "echo-server.js", content: echoServerSource },
  });
  expect(written.status).toBe(200);
  const started = await sendAs(test, key, `/v1/sandboxes/${sessionId}/processes`, {
    method: "POST",
    json: { command: `node echo-server.js ${port}` },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const ready = await sendAs(
    test,
    key,
    `/v1/sandboxes/${sessionId}/processes/${started.body.process_id}/output?since_offset=0&wait_seconds=10`,
  );
  expect(ready.body.stdout).toContain("listening");
}

const mint = (test: TestPlatform, key: string, sessionId: string) =>
  sendAs(test, key, `/v1/sandboxes/${sessionId}/preview/${port}`, {
    method: "POST",
    json: { ttl_seconds: 600 },
  });

const listed = async (test: TestPlatform, key: string, sessionId: string): Promise<string[]> =>
  (await sendAs(test, key, `/v1/sandboxes/${sessionId}/previews`)).body.previews.map(
    (entry: { token_id: string }) => entry.token_id,
  );

/** The link's answer through a replica's app: status and text. */
async function visit(test: TestPlatform, url: string): Promise<[number, string]> {
  const answer = await test.request(new URL(url).pathname);
  return [answer.status, await answer.text()];
}

/** The runtime, with its close left to the test: two replicas share it as they would a cluster. */
function shared(runtime: SandboxRuntime): SandboxRuntime {
  return new Proxy(runtime, {
    get: (target, property, receiver) =>
      property === "close" ? async () => {} : Reflect.get(target, property, receiver),
  });
}

describe("preview links of two replicas on one PostgreSQL database", () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let runtime: TestRuntime;
  let first: TestPlatform;
  let second: TestPlatform;
  let client: SandboxClient;
  let sessionId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    runtime = await createTestRuntime();
    const replica = () =>
      createSandboxPlatform("postgresql", {
        databaseUrl: database.url,
        sandboxRuntime: shared(runtime.runtime),
      });
    first = await replica();
    second = await replica();
    client = await createSandboxClient(first);
    sessionId = (await client.createActive()).id;
    await startEchoServer(first, client.key, sessionId);
  }, 120_000);
  afterAll(async () => {
    await second?.close();
    await first?.close();
    await runtime?.cleanUp();
    await database?.drop();
  });

  it("serves, lists and revokes through one replica a link minted through the other", {
    timeout: 60_000,
  }, async () => {
    const created = await mint(first, client.key, sessionId);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(await visit(second, created.body.url)).toEqual([200, `hello from ${port} GET /`]);
    expect(await visit(first, created.body.url)).toEqual([200, `hello from ${port} GET /`]);
    expect(await listed(second, client.key, sessionId)).toContain(created.body.token_id);

    const revoke = (test: TestPlatform) =>
      sendAs(test, client.key, `/v1/sandboxes/${sessionId}/preview/${port}/revoke`, {
        method: "POST",
        json: { token_id: created.body.token_id },
      });
    expect(await revoke(second)).toEqual({ status: 200, body: { revoked: true } });
    expect(await revoke(first)).toEqual({ status: 200, body: { revoked: true } });
    const after = await second.request(new URL(created.body.url).pathname);
    expect([after.status, errorCode(await after.json())]).toEqual([404, "not_found"]);
    // The first replica served the link a moment ago and may keep it for previewCacheMilliseconds.
    await eventually(async () => ((await visit(first, created.body.url))[0] === 404 ? true : undefined));
    expect(await listed(first, client.key, sessionId)).not.toContain(created.body.token_id);
  });

  it("ends a sandbox's links on every replica when one destroys it", { timeout: 60_000 }, async () => {
    const created = await mint(second, client.key, sessionId);
    expect(await visit(first, created.body.url)).toEqual([200, `hello from ${port} GET /`]);
    expect(await visit(second, created.body.url)).toEqual([200, `hello from ${port} GET /`]);
    expect((await client.destroy(sessionId)).status).toBe(204);
    expect((await visit(first, created.body.url))[0]).toBe(404);
    await eventually(async () => ((await visit(second, created.body.url))[0] === 404 ? true : undefined));
    const [rows] = await first.platform.storage.execute<{ total: number | string }>(
      `select count(*) as total from preview_links where session_id = '${sessionId}'`,
    );
    expect(Number(rows?.total)).toBe(0);
  });
});

describe.each(storageTargets)("preview links over a restart on %s", (target) => {
  let dataDir: string;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  const open = new Set<TestPlatform>();
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "cairn-preview-restart-"));
    if (target === "postgresql") database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const test of open) await test.platform.close();
    await rm(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  it("still serves, lists and revokes a link minted before the restart", { timeout: 120_000 }, async () => {
    const start = async () => {
      const test = await createSandboxPlatform(target, { dataDir, databaseUrl: database?.url });
      open.add(test);
      return test;
    };
    const before = await start();
    const client = await createSandboxClient(before);
    const sessionId = (await client.createActive()).id;
    await startEchoServer(before, client.key, sessionId);
    const created = await mint(before, client.key, sessionId);
    expect(await visit(before, created.body.url)).toEqual([200, `hello from ${port} GET /`]);
    open.delete(before);
    await before.platform.close();

    const after = await start();
    expect(await reconcileSandboxes(after.platform)).toMatchObject({ adopted: 1 });
    // The sandbox's processes ended with the server that held them; the link did not.
    await startEchoServer(after, client.key, sessionId);
    expect(await visit(after, created.body.url)).toEqual([200, `hello from ${port} GET /`]);
    expect(await listed(after, client.key, sessionId)).toEqual([created.body.token_id]);
    const revoked = await sendAs(after, client.key, `/v1/sandboxes/${sessionId}/preview/${port}/revoke`, {
      method: "POST",
      json: { token_id: created.body.token_id },
    });
    expect(revoked.status).toBe(200);
    expect((await visit(after, created.body.url))[0]).toBe(404);
    open.delete(after);
    await after.platform.close();
  });
});
