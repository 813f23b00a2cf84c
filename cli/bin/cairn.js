#!/usr/bin/env node
/**
 * The installed `cairn` command. Plain JavaScript, so any Node 20+ starts it, and it runs the
 * built bundle cli/dist/cairn.js in this process. The bundle is built from the checkout's sources
 * (cli/bin/build-bundle.js) when it is missing or older than they are, once, before the command
 * runs; `npm run build` builds it ahead. Two cases take the TypeScript source, cli/cairn.ts, which
 * needs Node 24: `cairn mcp serve --data-dir`, which runs the server in this process, and a
 * checkout where the bundle cannot be built (no rolldown, a read-only folder). On an older Node
 * those re-run on the Node 24 binary of the npm `node` package the checkout installs, passing stdio
 * through and handing back the exit code or signal; with neither, it says what to install.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import module, { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const minimumMajor = 24;
const here = dirname(realpathSync(fileURLToPath(import.meta.url)));
const source = join(here, "..", "cairn.ts");
const bundle = join(here, "..", "dist", "cairn.js");
const major = Number(process.versions.node.split(".")[0]);
const args = process.argv.slice(2);

/** `cairn mcp serve --data-dir …` (options may sit anywhere after `mcp serve`). */
function servesInProcess() {
  const at = args.indexOf("mcp");
  return (
    at >= 0 &&
    args[at + 1] === "serve" &&
    args.slice(at + 2).some((arg) => arg === "--data-dir" || arg.startsWith("--data-dir="))
  );
}

/** True when the bundle is there and built from the sources as they are now, else tries to build it. */
async function bundleReady() {
  try {
    const inputs = JSON.parse(readFileSync(join(here, "..", "dist", "inputs.json"), "utf8"));
    if (existsSync(bundle) && inputs.every(unchanged)) return true;
  } catch {}
  try {
    const { buildBundle } = await import("./build-bundle.js");
    await buildBundle();
    return true;
  } catch {
    return false;
  }
}

// Not imported from build-bundle.js: that module is loaded only to build.
function unchanged(input) {
  try {
    const { size, mtimeMs } = statSync(join(here, "..", "dist", input.file));
    return size === input.size && mtimeMs === input.mtimeMs;
  } catch {
    return false;
  }
}

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

function runSourceOnNode24() {
  const binary = bundledNode();
  if (!binary) {
    process.stderr.write(
      `Error: this cairn command needs Node ${minimumMajor} or newer, and this is Node ${process.versions.node}. ` +
        `Install Node ${minimumMajor} (https://nodejs.org), or run \`npm install\` in the Cairn checkout, ` +
        "which brings it as the npm package `node`. [unsupported_node]\n",
    );
    process.exit(1);
  }
  const child = spawn(binary, [source, ...args], { stdio: "inherit" });
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

if (!servesInProcess() && (await bundleReady())) {
  // Node 22.1+ keeps the bundle's compiled code on disk between runs (Node 20 has no such cache).
  module.enableCompileCache?.(join(here, "..", "..", "node_modules", ".cache", "cairn-cli-compile"));
  await import(pathToFileURL(bundle).href);
} else if (major >= minimumMajor) {
  await import(pathToFileURL(source).href);
} else {
  runSourceOnNode24();
}
