#!/usr/bin/env node
/**
 * The installed `cairn` command. Plain JavaScript, so any Node can start it: on Node 24 or newer
 * it runs cli/cairn.ts in this process (Node strips the types); on an older Node it re-runs
 * cli/cairn.ts with the Node 24 binary of the npm `node` package that the checkout installs,
 * passing stdio through and handing back the exit code or signal. With neither, it says what to
 * install.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const minimumMajor = 24;
const here = dirname(realpathSync(fileURLToPath(import.meta.url)));
const entry = join(here, "..", "cairn.ts");
const major = Number(process.versions.node.split(".")[0]);

/** The `node` package's binary, if the checkout has one new enough. */
function bundledNode() {
  try {
    const manifest = createRequire(join(here, "..", "package.json")).resolve("node/package.json");
    const { version } = JSON.parse(readFileSync(manifest, "utf8"));
    const binary = join(dirname(manifest), "bin", process.platform === "win32" ? "node.exe" : "node");
    return Number(String(version).split(".")[0]) >= minimumMajor && existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

if (major >= minimumMajor) {
  await import(pathToFileURL(entry).href);
} else {
  const binary = bundledNode();
  if (!binary) {
    process.stderr.write(
      `Error: cairn needs Node ${minimumMajor} or newer, and this is Node ${process.versions.node}. ` +
        `Install Node ${minimumMajor} (https://nodejs.org), or run \`npm install\` in the Cairn checkout, ` +
        "which brings it as the npm package `node`. [unsupported_node]\n",
    );
    process.exit(1);
  }
  const child = spawn(binary, [entry, ...process.argv.slice(2)], { stdio: "inherit" });
  const forwarded = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];
  const forward = (signal) => child.kill(signal);
  for (const signal of forwarded) process.on(signal, forward);
  child.on("error", (error) => {
    process.stderr.write(`Error: cannot start ${binary}: ${error.message} [unsupported_node]\n`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => {
    for (const name of forwarded) process.off(name, forward);
    // End the way the child ended: by the same signal, or with its exit code.
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}
