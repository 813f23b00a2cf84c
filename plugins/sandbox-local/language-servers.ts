/**
 * The language servers of the local runtime (docs/sandboxes.md#language-servers): the project's
 * node_modules, which hold pyright, typescript-language-server and typescript, bound read-only at
 * `languageServersPath` in the mount namespace of each session process only. Every session has an
 * empty directory there (bubblewrap-arguments.ts) for the bind to land on; no exec sees more.
 */
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { languageServersPath } from "../../core/index.ts";

export { languageServersPath };

/** The host directory holding the servers' packages, or null when they are not installed. */
export function languageServersDirectory(): string | null {
  try {
    return dirname(dirname(createRequire(import.meta.url).resolve("pyright/package.json")));
  } catch {
    return null;
  }
}
