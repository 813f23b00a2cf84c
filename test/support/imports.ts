/**
 * The relative imports of this repository's TypeScript, for the architecture tests
 * (test/import-boundaries.test.ts, test/import-cycles.test.ts): static, type-only, dynamic and
 * re-exports alike.
 */
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";

export const repositoryRoot = resolve(import.meta.dirname, "../..");

export interface Edge {
  /** The importing file, from the repository root. */
  from: string;
  /** The imported file from the repository root, or a package's specifier as written. */
  to: string;
  /** A relative import (a file of this repository) rather than a package. */
  local: boolean;
}

/** Every import of every .ts/.tsx file under `folder` (installed packages aside). */
export async function importsUnder(folder: string, root = repositoryRoot): Promise<Edge[]> {
  const entries = await readdir(join(root, folder), { recursive: true, withFileTypes: true });
  const edges: Edge[] = [];
  for (const entry of entries) {
    const file = join(entry.parentPath, entry.name);
    const from = relative(root, file);
    if (!entry.isFile() || !/\.tsx?$/.test(from) || from.split("/").includes("node_modules")) continue;
    const source = await readFile(file, "utf8");
    for (const match of source.matchAll(
      /(?:import|export)\s[^;]*?from\s+"([^"]+)"|import\(\s*"([^"]+)"\s*\)|^import\s+"([^"]+)"/gm,
    )) {
      const specifier = match[1] ?? match[2] ?? match[3];
      const local = specifier.startsWith(".");
      edges.push({ from, to: local ? relative(root, resolve(dirname(file), specifier)) : specifier, local });
    }
  }
  return edges;
}
