/**
 * Core's root entry imports no transport, plugin, CLI or `node:` module, directly or through
 * any file it reaches, so Deno and any host can run it; and the package version is in one place.
 */
import { readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { version } from "../core/index.ts";

const root = resolve(import.meta.dirname, "..");
// The packages core declares, and nothing else: no transport, plugin or runtime-specific module.
const allowedPackages = new Set(
  Object.keys(JSON.parse(await readFile(join(root, "core/package.json"), "utf8")).dependencies),
);

/** `@scope/name/sub.js` → `@scope/name`, `name/sub.js` → `name`. */
const packageOf = (specifier: string) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

async function importGraph(entry: string): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (graph.has(file)) continue;
    const source = await readFile(file, "utf8");
    const specifiers = [
      ...source.matchAll(/(?:import|export)\s[^;]*?from\s+"([^"]+)"|import\("([^"]+)"\)/g),
    ].map((match) => match[1] ?? match[2]);
    graph.set(file, specifiers);
    for (const specifier of specifiers) {
      if (specifier.startsWith(".")) pending.push(join(dirname(file), specifier));
    }
  }
  return graph;
}

describe("core boundary", () => {
  it("reaches only core files and the packages core declares", async () => {
    const graph = await importGraph(join(root, "core/index.ts"));
    expect(graph.size).toBeGreaterThan(10);
    const violations: string[] = [];
    for (const [file, specifiers] of graph) {
      const where = relative(root, file);
      if (!where.startsWith("core/")) violations.push(`${where} is outside core`);
      for (const specifier of specifiers) {
        if (specifier.startsWith(".")) continue;
        if (!allowedPackages.has(packageOf(specifier))) violations.push(`${where} imports ${specifier}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("the version constant matches package.json", async () => {
    const manifest = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { version: string };
    expect(version).toBe(manifest.version);
  });
});
