/**
 * The generic tool routes (docs/plugins.md#rest): `GET /v1/tools` lists every operation the
 * deployment offers, built-in and plugin, with its JSON Schemas; `POST /v1/tools/{name}` calls
 * one by name with its whole input as the JSON body. A call runs the same pipeline as the
 * operation's own route (credential, bucket, validation, idempotency key, logging, errors), so
 * a client such as an SDK's `callTool` needs no code per tool.
 */
import type { Hono } from "hono";
import { type AnyTool, authenticate, isEnabled, type Platform, ServiceError } from "../../core/index.ts";
import { bearerCredential } from "../bearer-credential.ts";
import { jsonSchema, openApiPath } from "./openapi.ts";
import { answerOperation, type OperationRouteOptions, readJsonBody } from "./operation-routes.ts";

/** The paths these routes take, for telling a wrong method (405) from an unknown path (404). */
export const toolRoutes = [
  { method: "GET", path: "/v1/tools" },
  { method: "POST", path: "/v1/tools/:name" },
] as const;

/** One operation as GET /v1/tools lists it. */
export function describeTool(tool: AnyTool) {
  const { readOnly, destructive, idempotent, openWorld } = tool.annotations;
  return {
    name: tool.name,
    plugin: tool.plugin ?? null,
    group: tool.group,
    title: tool.title,
    description: tool.description,
    annotations: { read_only: readOnly, destructive, idempotent, open_world: openWorld },
    input_schema: jsonSchema(tool.input, "input"),
    output_schema: jsonSchema(tool.output, "output"),
    mcp_name: tool.mcp ? (tool.mcp.name ?? tool.name) : null,
    http: tool.http ? { method: tool.http.method, path: openApiPath(tool.http.path) } : null,
  };
}

export function mountToolRoutes(
  app: Hono<{ Variables: { requestId: string } }>,
  platform: Platform,
  options: OperationRouteOptions,
): void {
  const offered = platform.tools.tools.filter((tool) => isEnabled(tool, platform.config));
  const byName = new Map(offered.map((tool) => [tool.name, tool]));
  // Computed at the first listing, not at start-up: the schemas do not change while the server runs.
  let listing: { tools: Array<ReturnType<typeof describeTool>> } | undefined;

  app.get("/v1/tools", async (context) => {
    const credential = bearerCredential(context.req.header("Authorization"));
    await authenticate(platform, "api_key", credential, platform.clock.now());
    listing ??= { tools: offered.map(describeTool) };
    return context.json(listing);
  });
  app.post("/v1/tools/:name", async (context) => {
    const tool = byName.get(context.req.param("name"));
    if (!tool) throw new ServiceError("not_found", `Unknown tool ${context.req.param("name")}`);
    const input = await readJsonBody(context);
    return answerOperation(context, platform, tool, input, { ...options, asJson: true });
  });
}
