/**
 * What the package promises: no runtime dependencies, nothing Node-only (so Deno and browsers run
 * it), and none of the server's code — the registry types arrive by `import type`, which is erased.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const source = new URL("../src/", import.meta.url);
const files = readdirSync(source).filter((name) => name.endsWith(".ts"));
const imports = files.flatMap((name) =>
  [
    ...readFileSync(new URL(name, source), "utf8").matchAll(
      /^(import|export)(\s+type)?[^;]*?from\s+"([^"]+)"/gms,
    ),
  ].map((match) => ({ file: name, typeOnly: Boolean(match[2]), specifier: match[3] })),
);

describe("the cairn-client package", () => {
  it("has no runtime dependencies", () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.type).toBe("module");
  });

  it("imports nothing at run time but its own files", () => {
    expect(imports.length).toBeGreaterThan(5);
    const runtime = imports.filter((entry) => !entry.typeOnly);
    expect(runtime.filter((entry) => !/^\.\/[\w-]+\.ts$/.test(entry.specifier))).toEqual([]);
  });

  it("takes the server's types by type-only import, and only from the registry", () => {
    const outside = imports.filter((entry) => entry.specifier.startsWith("../"));
    expect(outside).toEqual([{ file: "types.ts", typeOnly: true, specifier: "../../../core/registry.ts" }]);
  });

  it("uses no Node-only module or global", () => {
    for (const name of files) {
      const text = readFileSync(new URL(name, source), "utf8");
      expect(text, name).not.toMatch(/node:|\bBuffer\b|require\(/);
      // The environment (CAIRN_BASE_URL, CAIRN_API_KEY) is read in one place, through optional
      // access that gives undefined where there is no `process` (browsers).
      if (name !== "environment.ts") expect(text, name).not.toMatch(/\bprocess\b/);
    }
    expect(readFileSync(new URL("environment.ts", source), "utf8")).toContain("runtime.process?.env?.[name]");
  });
});
