/**
 * PostgreSQL stopped and started again under traffic, on a cluster of the test's own: readiness
 * goes 503 while the database is away and 200 once it is back; every request meanwhile is either
 * answered or refused with 503 `service_unavailable` and Retry-After (never a 500), and the same
 * server process serves again without a restart.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PrivatePostgres, startPrivatePostgres } from "../support/private-postgres.ts";
import { type RunningServer, signUpWithKey, startServer } from "../support/processes.ts";

const entry = join(import.meta.dirname, "../../platform/serve.ts");

interface Answer {
  route: string;
  status: number;
  code?: string;
  retryAfter: string | null;
}

/** One of each kind of request an outage must not turn into a 500: writes, reads, search, auth. */
function requests(baseUrl: string, key: string, email: string) {
  const json = { "content-type": "application/json", authorization: `Bearer ${key}` };
  return {
    remember: () =>
      fetch(`${baseUrl}/v1/memory`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ content: `Outage note ${crypto.randomUUID()}` }),
      }),
    list: () => fetch(`${baseUrl}/v1/memory?limit=5`, { headers: json }),
    search: () => fetch(`${baseUrl}/v1/memory/search?q=outage`, { headers: json }),
    account: () => fetch(`${baseUrl}/v1/account`, { headers: json }),
    sandboxes: () => fetch(`${baseUrl}/v1/sandboxes`, { headers: json }),
    login: () =>
      fetch(`${baseUrl}/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password: "correct horse battery" }),
      }),
  };
}

async function answer(route: string, response: Promise<Response>): Promise<Answer> {
  const settled = await response;
  const body = (await settled.json().catch(() => ({}))) as { error?: { code?: string } };
  return {
    route,
    status: settled.status,
    code: body.error?.code,
    retryAfter: settled.headers.get("retry-after"),
  };
}

async function readiness(baseUrl: string) {
  const response = await fetch(`${baseUrl}/health/ready`);
  return { status: response.status, body: await response.json() };
}

/** Polls until readiness answers `status` (bounded: a database restart takes a few seconds here). */
async function waitForReadiness(baseUrl: string, status: number) {
  for (let attempt = 0; attempt < 200; attempt++) {
    const ready = await readiness(baseUrl);
    if (ready.status === status) return ready;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`/health/ready never answered ${status}`);
}

describe("PostgreSQL stopped and restarted under traffic", () => {
  let database: PrivatePostgres;
  let dataDir: string;
  let server: RunningServer;

  beforeAll(async () => {
    database = await startPrivatePostgres();
    dataDir = await mkdtemp(join(tmpdir(), "cairn-outage-"));
    server = await startServer(process.execPath, [entry], {
      SVC_DATA_DIR: dataDir,
      SVC_DATABASE_URL: database.url,
      SVC_RATE_LIMIT_STORE: "postgres",
      SVC_LOG_LEVEL: "warn",
    });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.remove();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("refuses with 503 service_unavailable and Retry-After while it is down, and serves again once it is back", async () => {
    const { key, email } = await signUpWithKey(server.baseUrl);
    const routes = requests(server.baseUrl, key, email);
    expect((await routes.remember()).status).toBe(201);
    expect(await readiness(server.baseUrl)).toEqual({
      status: 200,
      body: { status: "ready", checks: { database: "ok" } },
    });

    // Traffic keeps coming while the database stops and starts again.
    const answers: Answer[] = [];
    let traffic = true;
    const load = (async () => {
      while (traffic) {
        for (const [route, send] of Object.entries(routes)) answers.push(await answer(route, send()));
      }
    })();
    // And searches back to back, so some are running on a search thread when the database goes.
    const searches = (async () => {
      while (traffic) answers.push(await answer("search", routes.search()));
    })();

    await database.stop();
    expect(await waitForReadiness(server.baseUrl, 503)).toEqual({
      status: 503,
      body: { status: "unavailable", checks: { database: "unreachable" } },
    });
    const down: Answer[] = [];
    for (const [route, send] of Object.entries(routes)) down.push(await answer(route, send()));
    expect(down).toEqual(
      Object.keys(routes).map((route) => ({
        route,
        status: 503,
        code: "service_unavailable",
        retryAfter: expect.stringMatching(/^[1-9]\d*$/),
      })),
    );

    await database.start();
    expect((await waitForReadiness(server.baseUrl, 200)).body).toEqual({
      status: "ready",
      checks: { database: "ok" },
    });
    traffic = false;
    await Promise.all([load, searches]);

    // The same process, never restarted, answers every route again.
    expect(server.process.exitCode).toBeNull();
    const after: Answer[] = [];
    for (const [route, send] of Object.entries(routes)) after.push(await answer(route, send()));
    expect(after.map(({ route, status }) => ({ route, status }))).toEqual([
      { route: "remember", status: 201 },
      { route: "list", status: 200 },
      { route: "search", status: 200 },
      { route: "account", status: 200 },
      { route: "sandboxes", status: 200 },
      { route: "login", status: 200 },
    ]);
    const failures = answers.filter((entry) => entry.status >= 400);
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) {
      expect(failure).toEqual({
        ...failure,
        status: 503,
        code: "service_unavailable",
        retryAfter: expect.stringMatching(/^[1-9]\d*$/),
      });
    }
  });

  it("keeps its search threads when PostgreSQL ends their idle connections", async () => {
    const { key } = await signUpWithKey(server.baseUrl);
    const search = () =>
      fetch(`${server.baseUrl}/v1/memory/search?q=idle`, { headers: { authorization: `Bearer ${key}` } });
    // Both threads hold an idle connection once two searches ran side by side.
    expect((await Promise.all([search(), search()])).map((response) => response.status)).toEqual([200, 200]);
    const before = server.output().length;
    await database.stop();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await database.start();
    expect((await waitForReadiness(server.baseUrl, 200)).status).toBe(200);
    expect(server.output().slice(before)).not.toContain("search thread failed");
    expect((await search()).status).toBe(200);
  });
});
