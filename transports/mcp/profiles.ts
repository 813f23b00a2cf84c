/**
 * Tool profiles, because 31 tool definitions crowd an agent's context: `memory` is the memory
 * tools, `sandbox` everything else an agent drives (sandboxes, files, images, …), `all` both.
 * A module of its own so `cairn mcp serve` can check `--tools` without loading the registry.
 */
export const toolProfiles = ["all", "memory", "sandbox"] as const;
export type ToolProfile = (typeof toolProfiles)[number];

export function inProfile(profile: ToolProfile, group: string): boolean {
  if (profile === "all") return true;
  return profile === "memory" ? group === "memory" : group !== "memory";
}
