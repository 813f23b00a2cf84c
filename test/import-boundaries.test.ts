/**
 * What may import what (docs/architecture.md, "What may import what"): core imports only core;
 * a transport imports core through its root entry; a plugin or a library imports core through
 * core/index.ts and core/ports/ only, a library through its index.ts only, and no plugin. Tests
 * and test helpers may also import test/. Every relative import is checked (static, dynamic,
 * re-exports); the project's own code is never imported by workspace package name. The CLI's
 * rule is test/cli/no-server-code.test.ts; core's root entry is test/core-boundary.test.ts.
 */
import { readdir, readFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");

interface Edge {
  /** The importing file, from the repository root. */
  from: string;
  /** The imported file from the repository root, or a package's specifier as written. */
  to: string;
  /** A relative import (a file of this repository) rather than a package. */
  local: boolean;
}

/** Every import of every .ts/.tsx file under `folder` (installed packages aside). */
async function importsUnder(folder: string): Promise<Edge[]> {
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

const isTest = (file: string) => /\.test[.-]/.test(basename(file));
/** `plugins/<name>/` or `lib/<name>/` of a file. */
const packageFolder = (file: string) => `${file.split("/").slice(0, 2).join("/")}/`;
/** A workspace package of this repository named as a package (`@cairn/core`, `cairn/plugin`). */
const isOwnPackage = (edge: Edge) => !edge.local && /^(@cairn\/|cairn(\/|$))/.test(edge.to);
const isPublicCore = (to: string) => to === "core/index.ts" || /^core\/ports\/[^/]+\.ts$/.test(to);
const isLibraryEntry = (to: string) => /^lib\/[^/]+\/index\.ts$/.test(to);
const isTestSupport = (edge: Edge) => isTest(edge.from) && edge.to.startsWith("test/");

/** The relative imports a rule refuses, and any import of this repository by package name. */
function violations(edges: Edge[], allowed: (edge: Edge) => boolean): string[] {
  return edges
    .filter((edge) => isOwnPackage(edge) || (edge.local && !allowed(edge)))
    .map((edge) => `${edge.from} → ${edge.to}`);
}

/** A plugin's and a library's rule: its own folder, public core, a library's entry, test/ for tests. */
const pluginOrLibrary = (edge: Edge) =>
  edge.to.startsWith(packageFolder(edge.from)) ||
  isPublicCore(edge.to) ||
  isLibraryEntry(edge.to) ||
  isTestSupport(edge);

const rules = {
  core: (edge: Edge) => edge.to.startsWith("core/") || isTestSupport(edge),
  transports: (edge: Edge) =>
    edge.to.startsWith("transports/") || edge.to === "core/index.ts" || edge.to === "core/version.ts",
  plugins: pluginOrLibrary,
  lib: pluginOrLibrary,
};

describe("import boundaries", () => {
  it("core imports only core (its tests also test/)", async () => {
    const edges = await importsUnder("core");
    expect(edges.length).toBeGreaterThan(100);
    expect(violations(edges, rules.core)).toEqual([]);
  });

  it("a transport imports core through core/index.ts (or the version alone), and no plugin, library, platform or CLI", async () => {
    const edges = await importsUnder("transports");
    expect(edges.some((edge) => edge.to === "core/index.ts")).toBe(true);
    expect(violations(edges, rules.transports)).toEqual([]);
  });

  it("a plugin imports core through core/index.ts and core/ports/ only, a library through its index.ts, and no other plugin", async () => {
    const edges = await importsUnder("plugins");
    expect(edges.some((edge) => edge.to === "core/index.ts")).toBe(true);
    expect(edges.some((edge) => isLibraryEntry(edge.to))).toBe(true);
    expect(violations(edges, rules.plugins)).toEqual([]);
  });

  it("a library imports core through core/index.ts and core/ports/ only, another library through its index.ts, and no plugin", async () => {
    const edges = await importsUnder("lib");
    expect(edges.some((edge) => isPublicCore(edge.to))).toBe(true);
    expect(violations(edges, rules.lib)).toEqual([]);
  });

  it("refuses what the rules forbid", () => {
    const refused = (rule: (edge: Edge) => boolean, from: string, to: string) =>
      violations([{ from, to, local: !to.startsWith("@") }], rule).length === 1;
    expect(refused(rules.core, "core/tool.ts", "transports/http-status.ts")).toBe(true);
    expect(refused(rules.core, "core/tool.ts", "test/support/platforms.ts")).toBe(true);
    expect(refused(rules.transports, "transports/rest/create-app.ts", "core/errors.ts")).toBe(true);
    expect(refused(rules.transports, "transports/rest/create-app.ts", "plugins/storage/index.ts")).toBe(true);
    expect(refused(rules.plugins, "plugins/sandbox-local/exec.ts", "core/errors.ts")).toBe(true);
    expect(refused(rules.plugins, "plugins/image-builder-local/a.ts", "plugins/sandbox-local/index.ts")).toBe(
      true,
    );
    expect(refused(rules.plugins, "plugins/sandbox-local/exec.ts", "lib/sandbox-isolation/limits.ts")).toBe(
      true,
    );
    expect(refused(rules.plugins, "plugins/sandbox-local/exec.ts", "platform/create-platform.ts")).toBe(true);
    expect(refused(rules.plugins, "plugins/sandbox-local/exec.ts", "@cairn/core")).toBe(true);
    expect(
      refused(rules.lib, "lib/egress-proxy/create-egress-proxy.ts", "plugins/sandbox-local/index.ts"),
    ).toBe(true);
    expect(refused(rules.plugins, "plugins/sandbox-local/exec.ts", "core/ports/logger.ts")).toBe(false);
    expect(refused(rules.plugins, "plugins/sandbox-local/exec.test.ts", "test/support/platforms.ts")).toBe(
      false,
    );
  });
});
