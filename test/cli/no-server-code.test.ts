/**
 * The CLI loads none of the server's code: it checks flags against the generated JSON Schemas
 * (cli/generated/operation-inputs.ts), not the registry and its handlers. Of the server's files it
 * reaches only the version constant, the list of MCP tool profiles and the MCP stdio shell (which
 * imports the SDK alone). The one way in is `cairn mcp serve --data-dir`, which serves the
 * registry in-process: one dynamic import from one module, allowed below by name and not followed.
 */
import { readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");

/** The CLI's one import of the server, loaded only by `cairn mcp serve --data-dir`. */
const inProcessEntry = { from: "cli/mcp-in-process.ts", to: "platform/serve-stdio.ts" };

/**
 * Every file reached from the entry through relative imports, static or dynamic, and the
 * allowed dynamic import where it was met (not followed).
 */
async function reachedFiles(entry: string): Promise<{ files: string[]; allowed: string[] }> {
  const reached = new Set<string>();
  const allowed: string[] = [];
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (reached.has(file)) continue;
    reached.add(file);
    const source = await readFile(file, "utf8");
    for (const match of source.matchAll(/(?:import|export)\s[^;]*?from\s+"([^"]+)"|import\("([^"]+)"\)/g)) {
      const specifier = match[1] ?? match[2];
      if (!specifier.startsWith(".")) continue;
      const target = join(dirname(file), specifier);
      const edge = { from: relative(root, file), to: relative(root, target) };
      if (match[2] !== undefined && edge.from === inProcessEntry.from && edge.to === inProcessEntry.to) {
        allowed.push(`${edge.from} → ${edge.to}`);
        continue;
      }
      pending.push(target);
    }
  }
  return { files: [...reached].map((file) => relative(root, file)), allowed };
}

describe("the cairn command", () => {
  it("reaches no server code but the version, the tool profiles and the MCP stdio shell", async () => {
    const { files, allowed } = await reachedFiles(join(root, "cli/cairn.ts"));
    expect(files).toContain("cli/generated/operation-inputs.ts");
    expect(files.filter((file) => !file.startsWith("cli/")).sort()).toEqual([
      "core/version.ts",
      "transports/mcp/profiles.ts",
      "transports/mcp/stdio.ts",
      "transports/mcp/tool-server.ts",
    ]);
    // The allowance is used, once: the in-process mode has not moved or multiplied.
    expect(allowed).toEqual([`${inProcessEntry.from} → ${inProcessEntry.to}`]);
  });
});
