/**
 * The entry a plugin imports (docs/plugins.md): `definePlugin`, `defineTool` (the built-in
 * operations' own, which also types a plugin tool's handler), the zod the host checks schemas
 * with, and the types of the plugin context and events. Web-standard like core's root entry, so
 * a plugin runs on Node and Deno.
 */
export { z } from "zod";
export { ServiceError } from "./errors.ts";
export {
  type AnyPluginTool,
  definePlugin,
  type Plugin,
  type PluginDefinition,
  type PluginHooks,
  type PluginToolDefinition,
} from "./plugins/define-plugin.ts";
export { defineTool } from "./plugins/define-tool.ts";
export type { PluginContext, PluginMemory, PluginSandboxes } from "./plugins/plugin-context.ts";
export type {
  MemoryRememberedEvent,
  PluginEventName,
  PluginEvents,
  SandboxDestroyedEvent,
} from "./plugins/plugin-events.ts";
export type { PluginStore, PluginStoreListOptions } from "./plugins/plugin-store.ts";
export type { ToolAnnotations } from "./tool.ts";
