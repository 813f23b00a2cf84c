/**
 * Outbound-MCP connections over REST (docs/api.md#mcp-connections) on both databases: create,
 * list and delete, the catalog (default and SVC_MCP_CATALOG), unique labels, the limit, tenancy,
 * the mcp_connection_ops bucket, and `mcp_connection_names` on sandbox create: unknown labels
 * refuse the create before anything exists, known ones become exactly their hosts in the
 * session's egress and mark the connection used.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeClock } from "../doubles/fake-clock.ts";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  errorDetails,
  type SandboxClient,
} from "./sandbox-client.ts";

interface ConnectionOut {
  id: string;
  label: string;
  catalog_id: string;
  host: string;
  created_at: string;
  last_used_at: string | null;
}

const createConnection = (client: SandboxClient, json: Record<string, unknown>) =>
  client.sendJson<ConnectionOut>("/v1/mcp-connections", { method: "POST", json });
const listConnections = (client: SandboxClient) => client.sendJson<ConnectionOut[]>("/v1/mcp-connections");

describe.each(storageTargets)("MCP connections on %s", (target) => {
  let test: TestPlatform;
  let client: SandboxClient;
  // Moved by hand, so connections made one after the other have distinct creation times and
  // "newest first" has a single answer (two in the same millisecond once failed this file).
  const clock = createFakeClock();

  beforeAll(async () => {
    test = await createSandboxPlatform(target, {
      clock,
      environment: {
        SVC_MAX_MCP_CONNECTIONS_PER_ACCOUNT: "3",
        SVC_MCP_CONNECTION_RATE_LIMIT_PER_MINUTE: "100000",
      },
    });
    client = await createSandboxClient(test);
  });
  afterAll(() => test.close());

  it("creates connections to the default catalog's hosts and lists them newest first", async () => {
    const created = await createConnection(client, { label: "code", catalog_id: "github" });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      label: "code",
      catalog_id: "github",
      host: "api.githubcopilot.com",
      created_at: expect.any(String),
      last_used_at: null,
    });
    const hosts: Record<string, string> = {
      slack: "mcp.slack.com",
      notion: "mcp.notion.com",
      linear: "mcp.linear.app",
    };
    const owner = await createSandboxClient(test);
    for (const [catalogId, host] of Object.entries(hosts)) {
      clock.advance(1000);
      const made = await createConnection(owner, { label: `my ${catalogId}`, catalog_id: catalogId });
      expect([made.status, made.body.host]).toEqual([201, host]);
    }
    const listed = await listConnections(owner);
    expect(listed.status).toBe(200);
    expect(listed.body.map((connection) => connection.catalog_id)).toEqual(["linear", "notion", "slack"]);
    expect((await listConnections(client)).body).toEqual([created.body]);
  });

  it("refuses a taken label (409), an unknown catalog id and bad labels (422)", async () => {
    const taken = await createConnection(client, { label: "code", catalog_id: "slack" });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ error: { code: "mcp_connection_label_taken", retryable: false } });
    for (const catalogId of ["gitlab", "", "GITHUB ", "constructor", "__proto__"]) {
      const refused = await createConnection(client, { label: "other", catalog_id: catalogId });
      expect([catalogId, refused.status, errorCode(refused.body)]).toEqual([
        catalogId,
        422,
        "validation_error",
      ]);
      expect(errorDetails(refused.body)).toEqual([expect.objectContaining({ loc: ["body", "catalog_id"] })]);
    }
    for (const json of [
      { catalog_id: "slack" },
      { label: "", catalog_id: "slack" },
      { label: "x".repeat(201), catalog_id: "slack" },
      { label: "a\u0000b", catalog_id: "slack" },
    ]) {
      const refused = await createConnection(client, json);
      expect([refused.status, errorCode(refused.body)]).toEqual([422, "validation_error"]);
    }
    // Labels are unique per account only.
    const elsewhere = await createConnection(await createSandboxClient(test), {
      label: "code",
      catalog_id: "slack",
    });
    expect(elsewhere.status).toBe(201);
    expect((await listConnections(client)).body).toHaveLength(1);
  });

  it("answers 429 mcp_connection_limit_reached with {limit} past the limit; a delete frees a slot", async () => {
    const owner = await createSandboxClient(test);
    const made = [];
    for (const label of ["a", "b", "c"])
      made.push((await createConnection(owner, { label, catalog_id: "notion" })).body);
    const refused = await createConnection(owner, { label: "d", catalog_id: "notion" });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: { code: "mcp_connection_limit_reached", retryable: false, details: { limit: 3 } },
    });
    expect((await owner.send(`/v1/mcp-connections/${made[0].id}`, { method: "DELETE" })).status).toBe(204);
    expect((await createConnection(owner, { label: "d", catalog_id: "notion" })).status).toBe(201);
  });

  it("deletes only the account's own connections", async () => {
    const [connection] = (await listConnections(client)).body;
    const stranger = await createSandboxClient(test);
    const foreign = await stranger.sendJson(`/v1/mcp-connections/${connection.id}`, { method: "DELETE" });
    expect([foreign.status, errorCode(foreign.body)]).toEqual([404, "not_found"]);
    expect((await client.send(`/v1/mcp-connections/${connection.id}`, { method: "DELETE" })).status).toBe(
      204,
    );
    const again = await client.sendJson(`/v1/mcp-connections/${connection.id}`, { method: "DELETE" });
    expect([again.status, errorCode(again.body)]).toEqual([404, "not_found"]);
    expect((await listConnections(client)).body).toEqual([]);
  });

  it("refuses unknown or foreign mcp_connection_names on sandbox create, creating nothing", async () => {
    const owner = await createSandboxClient(test);
    await createConnection(owner, { label: "tracker", catalog_id: "linear" });
    const stranger = await createSandboxClient(test);
    for (const names of [["missing"], ["tracker"]]) {
      const refused = await stranger.create({ mcp_connection_names: names });
      expect(refused.status).toBe(404);
      expect(refused.body).toMatchObject({ error: { code: "mcp_connection_not_found", retryable: false } });
    }
    const mixed = await owner.create({ mcp_connection_names: ["tracker", "missing"] });
    expect([mixed.status, errorCode(mixed.body)]).toEqual([404, "mcp_connection_not_found"]);
    expect((mixed.body as unknown as { error: { message: string } }).error.message).toContain('"missing"');
    expect((await owner.list()).body).toEqual([]);
    expect((await owner.usage()).body.total_sandboxes_created).toBe(0);
    expect((await listConnections(owner)).body[0].last_used_at).toBeNull();
  });

  it("grants a session exactly its connections' hosts and marks them used", async () => {
    const owner = await createSandboxClient(test);
    for (const [label, catalogId] of [
      ["chat", "slack"],
      ["docs", "notion"],
      ["unused", "linear"],
    ]) {
      await createConnection(owner, { label, catalog_id: catalogId });
    }
    const session = await owner.createActive({ mcp_connection_names: ["docs", "chat", "docs"] });
    const stored = await test.platform.storage.sandboxSessions.get(owner.accountId, session.id);
    expect(stored?.grants).toMatchObject({
      mcpConnectionNames: ["docs", "chat"],
      egressHosts: ["mcp.notion.com", "mcp.slack.com"],
    });
    const used = Object.fromEntries(
      (await listConnections(owner)).body.map((item) => [item.label, item.last_used_at]),
    );
    expect(used.chat).toEqual(expect.any(String));
    expect(used.docs).toEqual(used.chat);
    expect(used.unused).toBeNull();
    expect((await owner.destroy(session.id)).status).toBe(204);
    // A session without connections has no egress at all.
    const plain = await owner.createActive({});
    const plainStored = await test.platform.storage.sandboxSessions.get(owner.accountId, plain.id);
    expect(plainStored?.grants).toMatchObject({ mcpConnectionNames: [], egressHosts: [] });
    expect((await owner.destroy(plain.id)).status).toBe(204);
  });
});

describe("an operator's catalog, and the mcp_connection_ops bucket", () => {
  let test: TestPlatform;
  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite", {
      environment: {
        SVC_MCP_CATALOG: "tickets=mcp.tickets.example,wiki=mcp.wiki.example",
        SVC_MCP_CONNECTION_RATE_LIMIT_PER_MINUTE: "3",
      },
    });
  });
  afterAll(() => test.close());

  it("offers exactly the configured catalog", async () => {
    const client = await createSandboxClient(test);
    const made = await createConnection(client, { label: "t", catalog_id: "tickets" });
    expect([made.status, made.body.host]).toEqual([201, "mcp.tickets.example"]);
    const github = await createConnection(client, { label: "g", catalog_id: "github" });
    expect([github.status, errorCode(github.body)]).toEqual([422, "validation_error"]);
    expect(JSON.stringify(errorDetails(github.body))).toContain("tickets, wiki");
  });

  it("takes an mcp_connection_ops token for each create and delete, never for reads", async () => {
    const client = await createSandboxClient(test);
    const first = await createConnection(client, { label: "one", catalog_id: "wiki" });
    expect(first.headers.get("X-RateLimit-Limit")).toBe("3");
    expect(first.headers.get("X-RateLimit-Remaining")).toBe("2");
    for (let index = 0; index < 5; index++) expect((await listConnections(client)).status).toBe(200);
    expect((await client.send(`/v1/mcp-connections/${first.body.id}`, { method: "DELETE" })).status).toBe(
      204,
    );
    expect((await createConnection(client, { label: "two", catalog_id: "wiki" })).status).toBe(201);
    const limited = await createConnection(client, { label: "three", catalog_id: "wiki" });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({
      error: { code: "rate_limited", details: { bucket: "mcp_connection_ops", limit: 3 } },
    });
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
  });
});
