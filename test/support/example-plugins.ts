/**
 * The two example plugins (examples/plugins) as a live server's SVC_PLUGINS, by absolute path, so
 * a suite loads them the way an operator does, from wherever the test runs.
 */
import { join } from "node:path";

const root = join(import.meta.dirname, "../..");

export const examplePluginPaths = ["session-journal", "todo"].map((name) =>
  join(root, "examples/plugins", name),
);

/** The environment that loads both example plugins. */
export const withExamplePlugins = { SVC_PLUGINS: examplePluginPaths.join(",") };
