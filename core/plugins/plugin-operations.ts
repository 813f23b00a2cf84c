/**
 * Plugins become operations (docs/plugins.md#names): each tool is checked once at start (names,
 * collisions, schemas, bucket) and turned into a registry operation named `<plugin>.<tool>`,
 * served at `POST /v1/plugins/<plugin>/<tool>` and as the MCP tool `<plugin>__<tool>`, with an
 * API key, its declared bucket and the plugin context. A problem is a `PluginLoadError`: the
 * server does not start, and says which plugin and why in one line.
 */
import { z } from "zod";
import type { Config } from "../config.ts";
import { platformServiceNames } from "../platform-services.ts";
import { portOfferNames } from "../ports/plugin-ports.ts";
import { type AnyTool, requireAccount } from "../tool.ts";
import type { AnyPluginTool, Plugin } from "./define-plugin.ts";
import { createPluginContext } from "./plugin-context.ts";
import { pluginEventNames } from "./plugin-events.ts";

export const pluginNamePattern = /^[a-z][a-z0-9-]{0,31}$/;
export const pluginToolNamePattern = /^[a-z][a-z0-9_]{0,47}$/;
const mcpNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;
/** Fixed MCP profile names (`?tools=`), which a plugin's profile must not shadow. */
const reservedNames = new Set(["all", "memory", "sandbox"]);

/** Why a plugin stopped the start, naming it by its SVC_PLUGINS specifier; the message is the one line printed. */
export class PluginLoadError extends Error {
  readonly specifier: string;
  constructor(specifier: string, reason: string) {
    super(`cairn: cannot load plugin ${specifier}: ${reason.replace(/\s*\n\s*/g, " ")}`);
    this.name = "PluginLoadError";
    this.specifier = specifier;
  }
}

export const pluginMcpName = (plugin: string, tool: string) => `${plugin.replaceAll("-", "_")}__${tool}`;

/** `SVC_PLUGIN_<PLUGIN>_<BUCKET>_RATE_LIMIT_PER_MINUTE`, upper-cased, `-` as `_`. */
export const pluginRateLimitVariable = (plugin: string, bucket: string) =>
  `SVC_PLUGIN_${plugin}_${bucket}_RATE_LIMIT_PER_MINUTE`.replaceAll("-", "_").toUpperCase();

type JsonSchema = {
  description?: unknown;
  properties?: Record<string, JsonSchema>;
  items?: unknown;
  anyOf?: unknown[];
};

/** Input fields, at any depth, without a description (a model reading tools/list needs them). */
function undescribedFields(schema: JsonSchema, at = ""): string[] {
  const found: string[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const path = at ? `${at}.${name}` : name;
    if (typeof property.description !== "string" || property.description.trim() === "") found.push(path);
    found.push(...undescribedFields(property, path));
  }
  if (typeof schema.items === "object" && schema.items !== null)
    found.push(...undescribedFields(schema.items as JsonSchema, `${at}[]`));
  for (const part of schema.anyOf ?? [])
    if (typeof part === "object" && part !== null) found.push(...undescribedFields(part as JsonSchema, at));
  return found;
}

const zodType = (value: unknown): string | undefined =>
  (value as { def?: { type?: unknown } } | null)?.def?.type as string | undefined;

/** The reason a tool is not acceptable, or null. */
function toolProblem(tool: AnyPluginTool): string | null {
  if (typeof tool !== "object" || tool === null) return "a tool is not an object made with defineTool";
  const label = `tool ${JSON.stringify(tool.name)}`;
  if (typeof tool.name !== "string" || !pluginToolNamePattern.test(tool.name))
    return `${label}: a tool name must match ${pluginToolNamePattern.source}`;
  for (const field of ["title", "description"] as const) {
    if (typeof tool[field] !== "string" || tool[field].trim() === "") return `${label}: ${field} is missing`;
  }
  if (typeof tool.handler !== "function") return `${label}: handler is not a function`;
  if (zodType(tool.input) !== "object") return `${label}: input is not a zod object`;
  if (!["object", "array"].includes(zodType(tool.output) ?? ""))
    return `${label}: output is not a zod object or array`;
  let input: JsonSchema;
  try {
    input = z.toJSONSchema(tool.input, { io: "input" }) as JsonSchema;
    z.toJSONSchema(tool.output, { io: "output" });
  } catch (error) {
    return `${label}: its schema has no JSON Schema form (${error instanceof Error ? error.message : String(error)})`;
  }
  const undescribed = undescribedFields(input);
  if (undescribed.length > 0) return `${label}: input fields without .describe(): ${undescribed.join(", ")}`;
  const bucket = tool.bucket as { name?: unknown; perMinute?: unknown } | undefined;
  if (typeof bucket?.name !== "string" || !pluginToolNamePattern.test(bucket.name))
    return `${label}: bucket.name must match ${pluginToolNamePattern.source}`;
  if (!Number.isInteger(bucket.perMinute) || (bucket.perMinute as number) < 1)
    return `${label}: bucket.perMinute must be a positive integer`;
  return null;
}

/** Why a plugin's `ports` cannot be used, or null: an offer under a name no setting picks, or not a function. */
function portOffersProblem(plugin: Plugin): string | null {
  if (plugin.ports === undefined) return null;
  if (typeof plugin.ports !== "object" || plugin.ports === null) return "ports is not an object";
  for (const [port, offers] of Object.entries(plugin.ports)) {
    const names: readonly string[] | undefined = (portOfferNames as Record<string, readonly string[]>)[port];
    if (names === undefined)
      return `ports.${port} is not a port (${Object.keys(portOfferNames).join(", ")} are)`;
    if (typeof offers !== "object" || offers === null) return `ports.${port} is not an object`;
    for (const [name, create] of Object.entries(offers)) {
      if (!names.includes(name))
        return `ports.${port} offers "${name}", which no setting picks (${names.join(", ")})`;
      if (typeof create !== "function") return `ports.${port}.${name} is not a function`;
    }
  }
  return null;
}

/** The reason a plugin is not acceptable on its own, or null. */
function pluginProblem(plugin: Plugin): string | null {
  if (typeof plugin.name !== "string" || !pluginNamePattern.test(plugin.name))
    return `its name ${JSON.stringify(plugin.name)} does not match ${pluginNamePattern.source}`;
  if (reservedNames.has(plugin.name)) return `its name ${JSON.stringify(plugin.name)} is reserved`;
  if (typeof plugin.version !== "string" || plugin.version.trim() === "") return "its version is missing";
  if (plugin.tools !== undefined && !Array.isArray(plugin.tools)) return "tools is not an array";
  for (const tool of plugin.tools ?? []) {
    const problem = toolProblem(tool);
    if (problem) return problem;
  }
  for (const [event, hook] of Object.entries(plugin.hooks ?? {})) {
    if (!(pluginEventNames as readonly string[]).includes(event))
      return `hook ${JSON.stringify(event)} is no event (events: ${pluginEventNames.join(", ")})`;
    if (typeof hook !== "function") return `hook ${JSON.stringify(event)} is not a function`;
  }
  return portOffersProblem(plugin);
}

function toOperation(plugin: Plugin, tool: AnyPluginTool, config: Config): AnyTool {
  const variable = pluginRateLimitVariable(plugin.name, tool.bucket.name);
  return {
    name: `${plugin.name}.${tool.name}`,
    group: "plugins",
    plugin: plugin.name,
    title: tool.title,
    description: tool.description,
    annotations: tool.annotations,
    input: tool.input,
    output: tool.output,
    auth: "api_key",
    bucket: {
      name: `${plugin.name}.${tool.bucket.name}`,
      perMinute: config.pluginRateLimits[variable] ?? tool.bucket.perMinute,
    },
    http: { method: "POST", path: `/v1/plugins/${plugin.name}/${tool.name}`, status: 200 },
    mcp: { name: pluginMcpName(plugin.name, tool.name) },
    // The plugin's handler sees no port, only its context; that context runs built-in operations
    // through the in-process caller, whose pipeline needs the whole platform and hands each of
    // them only what it declares.
    uses: platformServiceNames,
    handler(context, input) {
      const pluginContext = createPluginContext(context.platform, {
        plugin: plugin.name,
        accountId: requireAccount(context),
        requestId: context.requestId,
        signal: context.signal,
      });
      return tool.handler(pluginContext, input);
    },
  };
}

/**
 * Every loaded plugin's operations, in load order, after checking each plugin and that no name
 * collides: not a plugin name, an operation name or an MCP tool name, with a built-in or
 * another plugin or within the plugin itself.
 */
export function pluginOperations(
  loaded: ReadonlyArray<{ specifier: string; plugin: Plugin }>,
  builtIns: readonly AnyTool[],
  config: Config,
): AnyTool[] {
  const names = new Set(builtIns.map((tool) => tool.name));
  const mcpNames = new Set(builtIns.flatMap((tool) => (tool.mcp ? [tool.mcp.name ?? tool.name] : [])));
  const pluginNames = new Map<string, string>();
  const operations: AnyTool[] = [];
  for (const { specifier, plugin } of loaded) {
    const problem = pluginProblem(plugin);
    if (problem) throw new PluginLoadError(specifier, problem);
    const earlier = pluginNames.get(plugin.name);
    if (earlier !== undefined)
      throw new PluginLoadError(specifier, `its name ${JSON.stringify(plugin.name)} is taken by ${earlier}`);
    pluginNames.set(plugin.name, specifier);
    for (const tool of plugin.tools ?? []) {
      const operation = toOperation(plugin, tool, config);
      const mcpName = operation.mcp?.name as string;
      if (!mcpNamePattern.test(mcpName))
        throw new PluginLoadError(
          specifier,
          `MCP tool name ${mcpName} does not match ${mcpNamePattern.source}`,
        );
      if (names.has(operation.name))
        throw new PluginLoadError(specifier, `tool name ${operation.name} is declared twice`);
      if (mcpNames.has(mcpName))
        throw new PluginLoadError(specifier, `MCP tool name ${mcpName} collides with another tool's`);
      names.add(operation.name);
      mcpNames.add(mcpName);
      operations.push(operation);
    }
  }
  return operations;
}
