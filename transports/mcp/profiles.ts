/**
 * Tool profiles, because 37 tool definitions crowd an agent's context: `memory` is the memory
 * tools, `sandbox` everything else built in that an agent drives (sandboxes, files, images, …),
 * `all` both and every plugin's tools, and each loaded plugin is a profile of its own tools
 * (`?tools=<plugin>`). A module of its own so `cairn mcp serve` can check `--tools` without
 * loading the registry.
 */
export const toolProfiles = ["all", "memory", "sandbox"] as const;
/** A fixed profile, or a plugin's name. */
export type ToolProfile = (typeof toolProfiles)[number] | (string & {});

export function inProfile(profile: ToolProfile, tool: { group: string; plugin?: string }): boolean {
  if (profile === "all") return true;
  if (tool.plugin !== undefined) return tool.plugin === profile;
  if (profile === "memory") return tool.group === "memory";
  return profile === "sandbox" && tool.group !== "memory";
}

/**
 * How a connection gets a tool's result (`?results=`, `--results`): `text`, the JSON once as a text
 * block (what chat clients hand their model); `structured`, once as `structuredContent`, the tools
 * listed with their `outputSchema` (for clients that read it); `both`, the two, as MCP's
 * backward-compatible form. A failed call carries its text line and its error object in every mode.
 * Unset: `text` for a client that negotiated a protocol before 2025-06-18 (which has no
 * `structuredContent`), `both` otherwise.
 */
export const resultModes = ["both", "text", "structured"] as const;
export type ResultMode = (typeof resultModes)[number];
