/**
 * The JavaScript runtimes the built packages are tested on besides this Node 24: Node 20 and 22
 * (the npm `node` package) and Bun (the npm `bun` package), which scripts/setup-test-env.sh
 * installs under .test-data/runtimes, and Deno (the repository's npm `deno` package).
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "../..");
const runtimes = join(root, ".test-data/runtimes");

export interface JsRuntime {
  name: string;
  command: string;
  /** Arguments before the script's path. */
  args: string[];
}

/** Each runtime with the command that runs a script; throws with the fix when one is missing. */
export function jsRuntimes(): JsRuntime[] {
  const list: JsRuntime[] = [
    { name: "Node 20", command: join(runtimes, "node-20/node_modules/.bin/node"), args: [] },
    { name: "Node 22", command: join(runtimes, "node-22/node_modules/.bin/node"), args: [] },
    { name: "Node 24", command: process.execPath, args: [] },
    {
      name: "Deno",
      command: join(root, "node_modules/deno/deno"),
      args: ["run", "--allow-env", "--allow-net", "--allow-read"],
    },
    { name: "Bun", command: join(runtimes, "bun/node_modules/.bin/bun"), args: [] },
  ];
  const missing = list.filter((runtime) => !existsSync(runtime.command));
  if (missing.length > 0) {
    throw new Error(
      `${missing.map((runtime) => `${runtime.name} (${runtime.command})`).join(", ")} missing: ` +
        "run `bash scripts/setup-test-env.sh` (npm test runs it), which installs them under .test-data/runtimes",
    );
  }
  return list;
}
