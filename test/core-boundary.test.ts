/**
 * Core's root entry imports no transport, plugin, CLI or `node:` module, directly or through
 * any file it reaches, so Deno and any host can run it; core knows no transport (no HTTP status,
 * no request location of a field, no `Authorization` header parsing); and the package version is
 * in one place.
 */
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { errorCodes, ServiceError, version } from "../core/index.ts";

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

/** Core's own sources: every `.ts` file under core/ but its tests and installed packages. */
async function coreSources(): Promise<Map<string, string>> {
  const entries = await readdir(join(root, "core"), { recursive: true, withFileTypes: true });
  const sources = new Map<string, string>();
  for (const entry of entries) {
    const file = join(entry.parentPath, entry.name);
    const where = relative(root, file);
    if (!entry.isFile() || !where.endsWith(".ts") || where.endsWith(".test.ts")) continue;
    if (where.split("/").includes("node_modules")) continue;
    sources.set(where, await readFile(file, "utf8"));
  }
  return sources;
}

/** Source without comments, and (`withoutText`) without double-quoted strings: the code itself. */
function codeOf(source: string, withoutText = false): string {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|\s)\/\/[^\n]*/g, "$1");
  return withoutText ? code.replace(/"(?:[^"\\\n]|\\.)*"/g, '""') : code;
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

  it("has no HTTP status: codes, retryability and remediation only", async () => {
    const errors = codeOf(await readFile(join(root, "core/errors.ts"), "utf8"));
    expect(errors.match(/\bstatus\b|\b[1-5]\d\d\b/g)).toBeNull();
    for (const spec of Object.values(errorCodes))
      expect(Object.keys(spec).sort()).toEqual(["remediation", "retryable"]);
    expect("status" in new ServiceError("not_found", "Not found")).toBe(false);
  });

  it("names a bad field by its input path, never by where a request carried it", async () => {
    const violations: string[] = [];
    for (const [where, source] of await coreSources()) {
      for (const match of codeOf(source).matchAll(/loc:\s*\[\s*"(body|query|header|input|arguments)"/g))
        violations.push(`${where}: ${match[0]}`);
    }
    expect(violations).toEqual([]);
  });

  it("parses no Authorization header: transports pass the bare credential", async () => {
    const violations: string[] = [];
    // Text shown to clients may say "Bearer" (a remediation, a description); code may not.
    for (const [where, source] of await coreSources()) {
      if (/bearer/i.test(codeOf(source, true))) violations.push(where);
    }
    expect(violations).toEqual([]);
  });

  it("the version constant matches package.json", async () => {
    const manifest = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { version: string };
    expect(version).toBe(manifest.version);
  });
});
