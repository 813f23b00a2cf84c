/**
 * The generic tool routes (docs/plugins.md#rest) with built-in operations: GET /v1/tools lists
 * what the deployment offers, POST /v1/tools/{name} runs a tool by name through the pipeline of
 * its own route (credential, bucket, validation, idempotency key, error envelope).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allOperations } from "../../core/index.ts";
import {
  createAccountWithKey,
  createTestPlatform,
  storageTargets,
  type TestPlatform,
} from "../support/platforms.ts";

interface ListedTool {
  name: string;
  plugin: string | null;
  group: string;
  annotations: Record<string, boolean>;
  input_schema: { type: string; properties: Record<string, unknown>; required?: string[] };
  output_schema: unknown;
  mcp_name: string | null;
  http: { method: string; path: string } | null;
}

describe.each(storageTargets)("the generic tool routes on %s", (target) => {
  let test: TestPlatform;
  let key: string;
  let token: string;
  let otherKey: string;
  beforeAll(async () => {
    test = await createTestPlatform(target, { environment: { SVC_MEMORY_RATE_LIMIT_PER_MINUTE: "6" } });
    ({ key, token } = await createAccountWithKey(test));
    otherKey = (await createAccountWithKey(test)).key;
  });
  afterAll(() => test.close());

  const call = (name: string, body: unknown, credential = key, headers: Record<string, string> = {}) =>
    test.request(`/v1/tools/${name}`, {
      method: "POST",
      credential,
      headers,
      ...(typeof body === "string" ? { body } : { json: body }),
    });

  it("lists every offered operation in registry order, with schemas and bindings", async () => {
    const response = await test.request("/v1/tools", { credential: key });
    expect(response.status).toBe(200);
    const { tools } = (await response.json()) as { tools: ListedTool[] };
    expect(tools.map((tool) => tool.name)).toEqual(allOperations.map((tool) => tool.name));
    const recall = tools.find((tool) => tool.name === "recall") as ListedTool;
    expect(recall).toMatchObject({
      plugin: null,
      group: "memory",
      annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
      mcp_name: "recall",
      http: { method: "GET", path: "/v1/memory/search" },
    });
    expect(recall.input_schema.type).toBe("object");
    expect(recall.input_schema.properties).toHaveProperty("q");
    const forget = tools.find((tool) => tool.name === "forget_memory") as ListedTool;
    expect(forget.http).toEqual({ method: "DELETE", path: "/v1/memory/{memory_id}" });
    expect(tools.find((tool) => tool.name === "signup")?.mcp_name).toBeNull();
  });

  it("refuses the listing without an API key, or with a dashboard token", async () => {
    const missing = await test.request("/v1/tools");
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("missing_credentials");
    const dashboard = await test.request("/v1/tools", { credential: token });
    expect(dashboard.status).toBe(401);
    expect(((await dashboard.json()) as { error: { code: string } }).error.code).toBe(
      "wrong_credential_type",
    );
  });

  it("remembers, then recalls, by name with the input as the body", async () => {
    const remembered = await call("remember", { content: "The deploy script lives in ops/deploy.sh." });
    expect(remembered.status).toBe(200);
    expect(remembered.headers.get("X-RateLimit-Limit")).toBe("6");
    const memory = (await remembered.json()) as { id: string; content: string };
    expect(memory.content).toBe("The deploy script lives in ops/deploy.sh.");
    const recalled = await call("recall", { q: "deploy script" });
    expect(recalled.status).toBe(200);
    const { memories } = (await recalled.json()) as { memories: Array<{ id: string }> };
    expect(memories.map((found) => found.id)).toContain(memory.id);
    // Another account recalls nothing of it: the account comes from the key, never the body.
    const theirs = (await (await call("recall", { q: "deploy script" }, otherKey)).json()) as {
      memories: unknown[];
    };
    expect(theirs.memories).toEqual([]);
    // A tool whose own route answers 204 answers 200 {} here; its path parameter is a body field.
    const forgotten = await call("forget_memory", { memory_id: memory.id });
    expect(forgotten.status).toBe(200);
    expect(await forgotten.json()).toEqual({});
    const again = await call("get_memory", { memory_id: memory.id });
    expect(again.status).toBe(404);
  });

  it("answers 404 not_found for an unknown name", async () => {
    const response = await call("no_such_tool", {});
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_found");
  });

  it("locates validation errors in the body, and refuses a body that is not JSON", async () => {
    const invalid = await call("recall", { q: "x", limit: "many" });
    expect(invalid.status).toBe(422);
    const body = (await invalid.json()) as { error: { code: string; details: Array<{ loc: string[] }> } };
    expect(body.error.code).toBe("validation_error");
    expect(body.error.details[0].loc).toEqual(["body", "limit"]);
    const path = (await (await call("get_memory", { memory_id: 7 })).json()) as {
      error: { details: Array<{ loc: string[] }> };
    };
    expect(path.error.details[0].loc).toEqual(["body", "memory_id"]);
    const notJson = await call("recall", "{not json");
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { code: string } }).error.code).toBe("invalid_json");
  });

  it("takes the tool's credential kind: an API key tool refuses a dashboard token and no credential", async () => {
    const dashboard = await call("recall", { q: "x" }, token);
    expect(dashboard.status).toBe(401);
    expect(((await dashboard.json()) as { error: { code: string } }).error.code).toBe(
      "wrong_credential_type",
    );
    const none = await test.request("/v1/tools/recall", { method: "POST", json: { q: "x" } });
    expect(none.status).toBe(401);
    // A dashboard-token operation takes the token, as on its own route.
    const keys = await call("list_api_keys", {}, token);
    expect(keys.status).toBe(200);
  });

  it("replays an Idempotency-Key like the tool's own route", async () => {
    const headers = { "Idempotency-Key": "tools-route-1" };
    const first = await call("remember", { content: "Idempotent through the tool route." }, key, headers);
    const second = await call("remember", { content: "Idempotent through the tool route." }, key, headers);
    expect(second.status).toBe(first.status);
    expect(await second.text()).toBe(await first.text());
  });

  it("takes tokens from the tool's own bucket", async () => {
    // remember's bucket allows 6 a minute and is shared with POST /v1/memory: drain it here, and
    // its own route is refused too.
    let last: Response | undefined;
    for (let attempt = 0; attempt < 8; attempt++)
      last = await call("remember", { content: `Note ${attempt}.` });
    expect(last?.status).toBe(429);
    const body = (await last?.json()) as { error: { code: string; details: { bucket: string } } };
    expect(body.error).toMatchObject({ code: "rate_limited", details: { bucket: "memory_ops" } });
    const ownRoute = await test.request("/v1/memory", {
      method: "POST",
      credential: key,
      json: { content: "x" },
    });
    expect(ownRoute.status).toBe(429);
  });

  it("answers 405 for another method on the tool routes", async () => {
    const response = await test.request("/v1/tools", { method: "POST", credential: key });
    expect(response.status).toBe(405);
  });
});
