/**
 * Scale-out on what exists: three server processes on one fresh PostgreSQL database
 * (SVC_RATE_LIMIT_STORE=postgres), started at once, behind a round-robin client. One bucket for
 * all of them; the concurrent-sandbox cap holds under parallel creates spread over the replicas
 * (real bubblewrap sandboxes); the reaper runs on one replica at a time (its lease is a
 * PostgreSQL advisory lock, which the test holds to keep every replica out); memory written on
 * one replica is recalled on another; an MCP session lives on the replica that opened it, another
 * replica refuses it with 404 (JSON-RPC -32001, `not_found` in its data), and a new session there works.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../support/platforms.ts";
import { type LiveAccount, type RunningServer, signUpWithKey, startServer } from "../support/processes.ts";

const entry = join(import.meta.dirname, "../../platform/serve.ts");
const replicaCount = 3;
const memoryLimit = 6;

interface Answer {
  replica: number;
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, checked field by field.
  body: any;
}

let database: { url: string; drop(): Promise<void> };
const dataDirs: string[] = [];
const replicas: RunningServer[] = [];
let turn = 0;

/** Sends each request to the next replica in turn, like a load balancer without affinity. */
async function roundRobin(path: string, init: RequestInit & { key?: string; json?: unknown } = {}) {
  const replica = turn++ % replicas.length;
  return on(replica, path, init);
}

async function on(
  replica: number,
  path: string,
  init: RequestInit & { key?: string; json?: unknown } = {},
): Promise<Answer> {
  const headers = new Headers(init.headers);
  if (init.key) headers.set("authorization", `Bearer ${init.key}`);
  if (init.json !== undefined) headers.set("content-type", "application/json");
  const response = await fetch(`${replicas[replica].baseUrl}${path}`, {
    ...init,
    headers,
    body: init.json === undefined ? init.body : JSON.stringify(init.json),
  });
  const text = await response.text();
  return {
    replica,
    status: response.status,
    headers: response.headers,
    body: text ? JSON.parse(text) : null,
  };
}

async function withDatabase<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Polls (bounded) until `check` holds. */
async function eventually(check: () => Promise<boolean>, attempts = 150): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/** How many reaper runs a replica's log shows skipped because another held the lease (whole lines only). */
function skippedRuns(output: string): number {
  return output
    .split("\n")
    .slice(0, -1)
    .filter((line) => line.includes('"reaper run skipped: another replica holds the lease"')).length;
}

beforeAll(async () => {
  database = await createTestDatabase();
  const shared = {
    SVC_DATABASE_URL: database.url,
    SVC_RATE_LIMIT_STORE: "postgres",
    SVC_MEMORY_RATE_LIMIT_PER_MINUTE: String(memoryLimit),
    // Every replica signs and reads the same dashboard tokens and secrets, as a deployment's would.
    SVC_JWT_SECRET: "replica-test-jwt-secret-0123456789abcdef0123456789",
    SVC_SECRETS_KEY: "replica-test-secrets-key-0123456789abcdef012345678",
    SVC_SESSION_REAPER_INTERVAL_SECONDS: "1",
    SVC_MEMORY_SEARCH_THREADS: "1",
    // Debug: a reaper run that finds another holding the lease says so, which the lease test waits for.
    SVC_LOG_LEVEL: "debug",
  };
  for (let index = 0; index < replicaCount; index++)
    dataDirs.push(await mkdtemp(join(tmpdir(), `cairn-replica-${index}-`)));
  // All at once on the empty database, as a Deployment's pods start.
  const started = await Promise.allSettled(
    dataDirs.map((dataDir, index) =>
      startServer(process.execPath, [entry], {
        ...shared,
        SVC_DATA_DIR: dataDir,
        // Each replica's local runtime hands out host uids of its own.
        SVC_SANDBOX_UID_RANGE: `${3_100_000 + index * 1000}-${3_100_000 + index * 1000 + 999}`,
      }),
    ),
  );
  for (const outcome of started) if (outcome.status === "fulfilled") replicas.push(outcome.value);
  const failed = started.find((outcome) => outcome.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
}, 120_000);

afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.stop()));
  for (const dataDir of dataDirs) await rm(dataDir, { recursive: true, force: true });
  await database?.drop();
}, 60_000);

describe("three replicas on one PostgreSQL", () => {
  let account: LiveAccount;
  beforeAll(async () => {
    account = await signUpWithKey(replicas[0].baseUrl);
  });

  it("draw from one bucket: the sum over the replicas obeys the limit", async () => {
    const writes = await Promise.all(
      Array.from({ length: memoryLimit + replicaCount }, (_, index) =>
        roundRobin("/v1/memory", {
          method: "POST",
          key: account.key,
          json: { content: `Bucket probe ${index}` },
        }),
      ),
    );
    const accepted = writes.filter((write) => write.status === 201);
    const refused = writes.filter((write) => write.status === 429);
    expect(accepted).toHaveLength(memoryLimit);
    expect(refused).toHaveLength(replicaCount);
    // Each token was taken once: the remaining counts are the bucket's countdown, whoever served.
    expect(accepted.map((write) => Number(write.headers.get("x-ratelimit-remaining"))).sort()).toEqual([
      0, 1, 2, 3, 4, 5,
    ]);
    expect(new Set(accepted.map((write) => write.replica)).size).toBeGreaterThan(1);
    for (const write of refused) {
      expect(write.body.error.code).toBe("rate_limited");
      expect(Number(write.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
  });

  it("recall on every replica what one replica wrote, with the dashboard token of another", async () => {
    const writer = await signUpWithKey(replicas[1].baseUrl);
    const written = await on(1, "/v1/memory", {
      method: "POST",
      key: writer.key,
      json: { content: "The staging cluster is called heron-replica-check" },
    });
    expect(written.status).toBe(201);
    for (let replica = 0; replica < replicaCount; replica++) {
      const found = await on(replica, "/v1/memory/search?q=heron-replica-check", { key: writer.key });
      expect(found.status).toBe(200);
      expect(JSON.stringify(found.body)).toContain(written.body.id);
      expect((await on(replica, `/v1/memory/${written.body.id}`, { key: writer.key })).status).toBe(200);
      // A dashboard token from replica 1 is good on every replica (one SVC_JWT_SECRET).
      const keys = await on(replica, "/v1/api-keys", {
        headers: { authorization: `Bearer ${writer.token}` },
      });
      expect(keys.status).toBe(200);
    }
  });
});

describe("sandboxes across replicas", () => {
  let account: LiveAccount;
  beforeAll(async () => {
    account = await signUpWithKey(replicas[2].baseUrl);
  });

  it("keep the account's concurrent cap under parallel creates on every replica", async () => {
    const creates = await Promise.all(
      Array.from({ length: 2 * replicaCount }, () =>
        roundRobin("/v1/sandboxes", { method: "POST", key: account.key, json: { size: "small" } }),
      ),
    );
    const created = creates.filter((create) => create.status === 201);
    const refused = creates.filter((create) => create.status === 429);
    expect(created).toHaveLength(2);
    expect(refused).toHaveLength(2 * replicaCount - 2);
    for (const answer of refused) {
      expect(answer.body.error).toMatchObject({
        code: "concurrent_sandbox_limit_reached",
        details: { limit: 2, active: 2 },
      });
    }
    for (let replica = 0; replica < replicaCount; replica++) {
      expect((await on(replica, "/v1/sandboxes?active_only=true", { key: account.key })).body).toHaveLength(
        2,
      );
    }
    // A local sandbox lives on the replica that made it: that replica runs and destroys it, and
    // another one refuses it with a clean 404, never a 500 (scaled-out sandboxes are Kubernetes pods).
    for (const answer of created) {
      const id = answer.body.id as string;
      const elsewhere = await on((answer.replica + 1) % replicaCount, `/v1/sandboxes/${id}/exec`, {
        method: "POST",
        key: account.key,
        json: { command: "echo replica" },
      });
      expect(elsewhere.status).toBe(404);
      expect(elsewhere.body.error.code).toBe("not_found");
      const exec = await on(answer.replica, `/v1/sandboxes/${id}/exec`, {
        method: "POST",
        key: account.key,
        json: { command: "echo replica" },
      });
      expect(exec.body).toMatchObject({ exit_code: 0, stdout: "replica\n" });
      expect(
        (await on(answer.replica, `/v1/sandboxes/${id}`, { method: "DELETE", key: account.key })).status,
      ).toBe(204);
    }
  });

  it("are reaped by one replica at a time: none while another holds the reaper's lease, then one", async () => {
    const created = await roundRobin("/v1/sandboxes", {
      method: "POST",
      key: account.key,
      json: { size: "small" },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      // The lease a reaper run takes (storage.runExclusive("sandbox-reaper")), held here as a
      // fourth replica in the middle of its run would hold it.
      await holder.query("begin");
      // A replica's reaper run may hold it this moment (they come by every second): wait our turn.
      const held = await eventually(async () => {
        const { rows } = await holder.query(
          "select pg_try_advisory_xact_lock(hashtext('cairn:sandbox-reaper')) as held",
        );
        return rows[0].held === true;
      });
      expect(held).toBe(true);
      await withDatabase((client) =>
        client.query("update sandbox_sessions set expires_at = now() - interval '1 second' where id = $1", [
          id,
        ]),
      );
      // Every replica's reaper (each comes by every second) has since found the lease taken, and
      // so left the expired session alone: waited for in their logs, whole lines only.
      const skippedSince = replicas.map((replica) => skippedRuns(replica.output()));
      expect(
        await eventually(
          async () => replicas.every((replica, index) => skippedRuns(replica.output()) > skippedSince[index]),
          600,
        ),
      ).toBe(true);
      const status = async () =>
        withDatabase(async (client) => {
          const result = await client.query(
            "select status, ended_reason from sandbox_sessions where id = $1",
            [id],
          );
          return result.rows[0] as { status: string; ended_reason: string | null };
        });
      expect(await status()).toEqual({ status: "active", ended_reason: null });
      await holder.query("commit");
      expect(await eventually(async () => (await status()).status === "destroyed")).toBe(true);
      expect(await status()).toEqual({ status: "destroyed", ended_reason: "expired" });
    } finally {
      await holder.end();
    }
    // Whole lines only: the last piece may be a line still on its way.
    const reaped = () =>
      replicas.flatMap((replica, index) =>
        replica
          .output()
          .split("\n")
          .slice(0, -1)
          .filter((line) => line.includes('"reaped expired sandboxes"'))
          .map((line) => ({ index, ended: (JSON.parse(line) as { ended: number }).ended })),
      );
    // The reaper logs after its transaction has committed, and the line then still has to come
    // through the replica's stdout pipe: the row says destroyed before the line is here.
    expect(await eventually(async () => reaped().length > 0)).toBe(true);
    expect(reaped()).toHaveLength(1);
    expect(reaped()[0].ended).toBe(1);
  });
});

describe("an MCP session over HTTP", () => {
  let account: LiveAccount;
  beforeAll(async () => {
    account = await signUpWithKey(replicas[0].baseUrl);
  });

  const transportTo = (replica: number, sessionId?: string) =>
    new StreamableHTTPClientTransport(new URL(`${replicas[replica].baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${account.key}` } },
      sessionId,
    });

  it("is refused cleanly by a replica that did not open it, and opens again there", async () => {
    const first = new Client({ name: "cairn-replica-test", version: "1.0.0" });
    const firstTransport = transportTo(0);
    await first.connect(firstTransport);
    const sessionId = firstTransport.sessionId as string;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const remembered = await first.callTool({
      name: "remember",
      arguments: { content: "Replica sessions are sticky: pelican-session-check" },
    });
    expect(remembered.isError).toBeFalsy();

    // The session id sent to another replica: 404, a JSON-RPC "session not found" (-32001) with
    // the REST error body (not_found) as its data, never a 500.
    const raw = await on(1, "/mcp", {
      method: "POST",
      key: account.key,
      headers: { "mcp-session-id": sessionId, accept: "application/json, text/event-stream" },
      json: { jsonrpc: "2.0", id: 7, method: "tools/list" },
    });
    expect(raw.status).toBe(404);
    expect(raw.body).toMatchObject({
      jsonrpc: "2.0",
      error: { code: -32001, data: { code: "not_found", retryable: false } },
    });
    expect(raw.body.error.message).toMatch(/initialize a new one/);
    // The SDK's client sees the same 404 (its signal to start a new session).
    const stray = transportTo(1, sessionId);
    await stray.start();
    const refused = await stray.send({ jsonrpc: "2.0", id: 8, method: "tools/list" }).catch((error) => error);
    expect(refused).toMatchObject({ code: 404 });
    await stray.close();

    const second = new Client({ name: "cairn-replica-test", version: "1.0.0" });
    const secondTransport = transportTo(1);
    await second.connect(secondTransport);
    expect(secondTransport.sessionId).not.toBe(sessionId);
    const recalled = await second.callTool({
      name: "recall",
      arguments: { query: "pelican-session-check" },
    });
    expect(JSON.stringify(recalled.structuredContent)).toContain("pelican-session-check");
    // The first session still works where it lives.
    expect((await first.listTools()).tools.length).toBeGreaterThan(0);
    await second.close();
    await first.close();
  });
});
