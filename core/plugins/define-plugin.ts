/**
 * What a plugin is (docs/plugins.md): a name, a version, typed tools written with the same
 * `defineTool` as the built-in operations, hooks on events, and implementations of core's ports
 * (the built-in plugins of plugins/ offer only those). The host turns its tools into
 * operations under its namespace (`<plugin>.<tool>`), so every transport serves them like the
 * built-in ones, and delivers its hooks from a durable queue. `definePlugin` only helps type
 * inference and marks the object, so the host can tell a plugin from any other default export.
 */
import type { z } from "zod";
import type { PortOffers } from "../ports/plugin-ports.ts";
import type { DeclaredBucket, ToolAnnotations } from "../tool.ts";
import type { PluginContext } from "./plugin-context.ts";
import type { PluginEvents } from "./plugin-events.ts";

/** A plugin tool: a built-in operation's description and schemas, with the plugin's context. */
export interface PluginToolDefinition<
  Name extends string = string,
  Input extends z.ZodObject = z.ZodObject,
  Output extends z.ZodType = z.ZodType,
> {
  /** `^[a-z][a-z0-9_]{0,47}$`; the registry calls it `<plugin>.<name>`. */
  name: Name;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  /** A zod object whose every field carries a `.describe()` (checked at load). */
  input: Input;
  output: Output;
  /**
   * The rate-limit bucket the tool draws from: tools of the plugin that name the same bucket
   * share its tokens. `SVC_PLUGIN_<PLUGIN>_<BUCKET>_RATE_LIMIT_PER_MINUTE` overrides `perMinute`.
   */
  bucket: DeclaredBucket;
  handler(context: PluginContext, input: z.output<Input>): Promise<z.input<Output>>;
}

// biome-ignore lint/suspicious/noExplicitAny: as AnyTool: zod object types are invariant in their shape.
export type AnyPluginTool = PluginToolDefinition<string, any, z.ZodType>;

/** A hook per event the plugin reacts to; it runs after the change committed, at least once. */
export type PluginHooks = {
  [Event in keyof PluginEvents]?: (event: PluginEvents[Event], context: PluginContext) => Promise<void>;
};

export interface PluginDefinition {
  /** `^[a-z][a-z0-9-]{0,31}$`: the REST path segment, the MCP profile and the tool prefix. */
  name: string;
  version: string;
  tools?: readonly AnyPluginTool[];
  hooks?: PluginHooks;
  /** Implementations of core's ports it offers, by name (docs/plugins.md#ports). */
  ports?: PortOffers;
}

/** Marks what `definePlugin` returned. `Symbol.for`, so a plugin bundling its own copy of this module still passes. */
export const pluginMark = Symbol.for("cairn.plugin");

export type Plugin = PluginDefinition & { readonly [pluginMark]: 1 };

export function definePlugin<const Definition extends PluginDefinition>(
  definition: Definition,
): Definition & { readonly [pluginMark]: 1 } {
  return { ...definition, [pluginMark]: 1 as const };
}

export function isPlugin(value: unknown): value is Plugin {
  return typeof value === "object" && value !== null && (value as Plugin)[pluginMark] === 1;
}
