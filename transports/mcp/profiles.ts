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
