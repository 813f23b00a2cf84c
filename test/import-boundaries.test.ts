/**
 * What may import what (docs/architecture.md, "What may import what"): core imports only core;
 * a transport imports core through its root entry; a plugin or a library imports core through
 * core/index.ts and core/ports/ only, a library through its index.ts only, and no plugin. Tests
 * may also import test/, where test doubles (test/doubles/fake-*.ts) and helpers (test/support/)
 * live: a source folder holds no test-only module but its tests. Every relative import is checked
 * (static, type-only, dynamic, re-exports); the project's own code is never imported by workspace
 * package name. The CLI's rule is test/cli/no-server-code.test.ts; core's root entry is
 * test/core-boundary.test.ts; import cycles are test/import-cycles.test.ts.
 */
import { readdir } from "node:fs/promises";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Edge, importsUnder, repositoryRoot } from "./support/imports.ts";

const isTest = (file: string) => /\.test\.tsx?$/.test(basename(file));
/** A name that says test double or test helper (`fake-cluster.ts`, `fuzz.test-helper.ts`, `test-support.ts`). */
const looksTestOnly = (file: string) =>
  /(^|[-.])(fakes?|doubles?|stubs?|mocks?|spy|test-support|test-helpers?)([-.]|$)/i.test(basename(file));
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

  it("test doubles and helpers live under test/, not beside the code they stand in for", async () => {
    const misplaced: string[] = [];
    for (const folder of ["core", "transports", "plugins", "lib", "platform", "cli"]) {
      for (const entry of await readdir(join(repositoryRoot, folder), {
        recursive: true,
        withFileTypes: true,
      })) {
        const file = join(entry.parentPath, entry.name);
        if (file.split("/").includes("node_modules") || !entry.isFile() || !/\.tsx?$/.test(file)) continue;
        if (!isTest(file) && looksTestOnly(file)) misplaced.push(file.slice(repositoryRoot.length + 1));
      }
    }
    expect(misplaced).toEqual([]);
    expect(looksTestOnly("plugins/sandbox-kubernetes/fake-cluster.ts")).toBe(true);
    expect(looksTestOnly("core/memory/fuzz-strings.test-helper.ts")).toBe(true);
    expect(looksTestOnly("core/sandboxes/files/file-operations.ts")).toBe(false);
  });

  it("refuses what the rules forbid", () => {
    const refused = (rule: (edge: Edge) => boolean, from: string, to: string) =>
      violations([{ from, to, local: !to.startsWith("@") }], rule).length === 1;
    expect(refused(rules.core, "core/tool.ts", "transports/http-status.ts")).toBe(true);
    expect(refused(rules.core, "core/tool.ts", "test/support/platforms.ts")).toBe(true);
    expect(refused(rules.core, "core/memory/fuzz.test-helper.ts", "test/support/seeded-random.ts")).toBe(
      true,
    );
    expect(refused(rules.core, "core/memory/tokenize.test.ts", "test/support/fuzz-strings.ts")).toBe(false);
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
