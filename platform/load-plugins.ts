/**
 * Loads the plugins SVC_PLUGINS names (docs/plugins.md#enabling), in order: a path (starting with
 * `.` or `/`, resolved from the working directory; a directory means its package.json `main`, or
 * its index.ts, or index.js) or a package name (resolved like any import of the server). A module
 * that fails to import, or whose default export is not a plugin, is a `PluginLoadError`.
 */
import { readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { isPlugin, type Plugin } from "../core/plugins/define-plugin.ts";
import { PluginLoadError } from "../core/plugins/plugin-operations.ts";

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** A path specifier as the file to import. */
async function entryFile(path: string): Promise<string> {
  if (
    !(await stat(path).then(
      (found) => found.isDirectory(),
      () => false,
    ))
  )
    return path;
  const manifest = join(path, "package.json");
  if (await exists(manifest)) {
    const { main } = JSON.parse(await readFile(manifest, "utf8")) as { main?: unknown };
    if (typeof main === "string") return join(path, main);
  }
  for (const index of ["index.ts", "index.js"]) if (await exists(join(path, index))) return join(path, index);
  return path;
}

const isPath = (specifier: string) => /^(\.{1,2}(\/|$)|\/)/.test(specifier);

export async function loadPlugins(
  specifiers: readonly string[],
): Promise<Array<{ specifier: string; plugin: Plugin }>> {
  const loaded: Array<{ specifier: string; plugin: Plugin }> = [];
  for (const specifier of specifiers) {
    let module: { default?: unknown };
    try {
      const target = isPath(specifier)
        ? pathToFileURL(await entryFile(resolve(process.cwd(), specifier))).href
        : specifier;
      module = await import(target);
    } catch (error) {
      const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
      throw new PluginLoadError(specifier, `import failed: ${message}`);
    }
    if (!isPlugin(module.default))
      throw new PluginLoadError(specifier, "its default export is not a plugin made with definePlugin");
    loaded.push({ specifier, plugin: module.default });
  }
  return loaded;
}
