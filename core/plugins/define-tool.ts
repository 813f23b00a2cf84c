/**
 * `defineTool` as a plugin imports it (core/plugin.ts): the built-in operations' own, with a
 * second shape for a plugin's tool, whose handler takes the plugin context. It lives here rather
 * than in tool.ts because the plugin context's types reach every built-in operation (its typed
 * memory and sandbox calls); tool.ts reaching them back would close an import cycle through every
 * operation (test/import-cycles.test.ts).
 */
import type { z } from "zod";
import type { AnyTool, PlatformServiceName, ToolDefinition } from "../tool.ts";
import type { AnyPluginTool, PluginToolDefinition } from "./define-plugin.ts";

export function defineTool<
  const Name extends string,
  Input extends z.ZodObject,
  Output extends z.ZodType,
  const Uses extends readonly PlatformServiceName[] = readonly [],
>(definition: ToolDefinition<Name, Input, Output, Uses>): ToolDefinition<Name, Input, Output, Uses>;
export function defineTool<const Name extends string, Input extends z.ZodObject, Output extends z.ZodType>(
  definition: PluginToolDefinition<Name, Input, Output>,
): PluginToolDefinition<Name, Input, Output>;
export function defineTool(definition: AnyTool | AnyPluginTool) {
  return definition;
}
