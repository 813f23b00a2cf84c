/**
 * The CLI loads none of the server's code: it checks flags against the generated JSON Schemas
 * (cli/generated/operation-inputs.ts), not the registry and its handlers. Of the server's files it
 * reaches only the version constant and the list of MCP tool profiles.
 */
import { readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");

/** Every file reached from the entry through relative imports. */
async function reachedFiles(entry: string): Promise<string[]> {
  const reached = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (reached.has(file)) continue;
    reached.add(file);
    const source = await readFile(file, "utf8");
    for (const match of source.matchAll(/(?:import|export)\s[^;]*?from\s+"([^"]+)"|import\("([^"]+)"\)/g)) {
      const specifier = match[1] ?? match[2];
      if (specifier.startsWith(".")) pending.push(join(dirname(file), specifier));
    }
  }
  return [...reached].map((file) => relative(root, file));
}

describe("the cairn command", () => {
  it("reaches no server code but the version and the tool profiles", async () => {
    const files = await reachedFiles(join(root, "cli/cairn.ts"));
    expect(files).toContain("cli/generated/operation-inputs.ts");
    expect(files.filter((file) => !file.startsWith("cli/")).sort()).toEqual([
      "core/version.ts",
      "transports/mcp/profiles.ts",
    ]);
  });
});
