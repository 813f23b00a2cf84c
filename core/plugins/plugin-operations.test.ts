/**
 * Plugins as operations: the names and bindings a tool gets, the bucket's limit and its SVC_
 * override, and the collisions and schema problems that stop the start.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loadConfig } from "../config.ts";
import { allOperations } from "../registry.ts";
import { definePlugin, type PluginDefinition } from "./define-plugin.ts";
import { defineTool } from "./define-tool.ts";
import { pluginOperations, pluginRateLimitVariable } from "./plugin-operations.ts";

const echo = (name = "echo", input: z.ZodObject = z.object({ text: z.string().describe("Text") })) =>
  defineTool({
    name,
    title: "Echo",
    description: "Echoes its text.",
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    input,
    output: z.object({ text: z.string() }),
    bucket: { name: "echo_ops", perMinute: 7 },
    handler: async (_context, value) => ({ text: String((value as { text?: unknown }).text) }),
  });

const load = (plugins: PluginDefinition[], environment: Record<string, string> = {}) =>
  pluginOperations(
    plugins.map((plugin, index) => ({ specifier: `./plugin-${index}`, plugin: definePlugin(plugin) })),
    allOperations,
    loadConfig(environment),
  );

describe("plugin operations", () => {
  it("name a tool <plugin>.<tool>, bind it to REST and MCP, and give it an API key and its bucket", () => {
    const [operation] = load([{ name: "my-tools", version: "1", tools: [echo()] }]);
    expect(operation).toMatchObject({
      name: "my-tools.echo",
      plugin: "my-tools",
      group: "plugins",
      auth: "api_key",
      bucket: { name: "my-tools.echo_ops", perMinute: 7 },
      http: { method: "POST", path: "/v1/plugins/my-tools/echo", status: 200 },
      mcp: { name: "my_tools__echo" },
    });
  });

  it("take the operator's limit for a bucket from its SVC_ variable", () => {
    expect(pluginRateLimitVariable("my-tools", "echo_ops")).toBe(
      "SVC_PLUGIN_MY_TOOLS_ECHO_OPS_RATE_LIMIT_PER_MINUTE",
    );
    const [operation] = load([{ name: "my-tools", version: "1", tools: [echo()] }], {
      SVC_PLUGIN_MY_TOOLS_ECHO_OPS_RATE_LIMIT_PER_MINUTE: "3",
    });
    expect(operation.bucket).toEqual({ name: "my-tools.echo_ops", perMinute: 3 });
    expect(() => loadConfig({ SVC_PLUGIN_MY_TOOLS_ECHO_OPS_RATE_LIMIT_PER_MINUTE: "0" })).toThrow(
      /SVC_PLUGIN_MY_TOOLS_ECHO_OPS_RATE_LIMIT_PER_MINUTE/,
    );
  });

  it("refuse MCP names that collide after `-` becomes `_`", () => {
    expect(() =>
      load([
        { name: "a", version: "1", tools: [echo("b__echo")] },
        { name: "a--b", version: "1", tools: [echo("echo")] },
      ]),
    ).toThrow("cairn: cannot load plugin ./plugin-1: MCP tool name a__b__echo collides with another tool's");
  });

  it("refuse names outside the rules, and schemas without a JSON Schema form", () => {
    expect(() => load([{ name: "Bad", version: "1" }])).toThrow(/its name "Bad" does not match/);
    expect(() => load([{ name: "ok", version: "1", tools: [echo("Echo")] }])).toThrow(
      /a tool name must match/,
    );
    const dated = echo("dated", z.object({ when: z.date().describe("A date") }));
    expect(() => load([{ name: "ok", version: "1", tools: [dated] }])).toThrow(
      /tool "dated": its schema has no JSON Schema form/,
    );
    const nested = echo("nested", z.object({ page: z.object({ size: z.number() }).describe("Paging") }));
    expect(() => load([{ name: "ok", version: "1", tools: [nested] }])).toThrow(
      /input fields without .describe\(\): page.size/,
    );
    expect(() =>
      load([{ name: "ok", version: "1", hooks: { "sandbox.created": async () => {} } as never }]),
    ).toThrow(/hook "sandbox.created" is no event/);
  });
});
