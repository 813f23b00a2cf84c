/**
 * Builds the `cairn` command into cli/dist (`npm run build`, or cli/bin/cairn.js itself when the
 * bundle is missing or older than its sources): one ESM bundle of cli/main.ts with its packages and
 * the SDK's source inlined, so any Node 20+ runs it without stripping types or a second process.
 * The TUI (Ink, React) and the MCP client stay in chunks loaded only by the commands that use them;
 * `cairn mcp serve --data-dir` loads the server from source and needs Node 24 (cli/mcp-in-process.ts).
 * Plain JavaScript, so the bin can run it on any Node; rolldown comes with the checkout's
 * dev dependencies.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const cliFolder = join(dirname(fileURLToPath(import.meta.url)), "..");
export const distFolder = join(cliFolder, "dist");
export const entryFile = join(distFolder, "cairn.js");
export const inputsFile = join(distFolder, "inputs.json");
const checkout = join(cliFolder, "..");

/** The in-process MCP server loads the server's code from source, on Node 24 only. */
const inProcessStub = `export async function serveInProcess(options) {
  if (Number(process.versions.node.split(".")[0]) < 24) {
    throw new Error("cairn mcp serve --data-dir runs the server in this process and needs Node 24 or newer");
  }
  const source = await import(new URL("../mcp-in-process.ts", import.meta.url).href);
  return source.serveInProcess(options);
}
`;

const isLocalModule = (id) => !id.startsWith("\0") && !id.split(sep).includes("node_modules");

/** The files a bundle was built from, with their sizes and times, to tell when it is stale. */
function stamp(file) {
  const { size, mtimeMs } = statSync(file);
  return { file: relative(distFolder, file), size, mtimeMs };
}

/** True when cli/dist holds a bundle built from the sources as they are now. */
export function bundleIsCurrent(inputs) {
  try {
    return inputs.every((input) => {
      const { size, mtimeMs } = statSync(join(distFolder, input.file));
      return size === input.size && mtimeMs === input.mtimeMs;
    });
  } catch {
    return false;
  }
}

export async function buildBundle() {
  const { build } = await import("rolldown");
  // Built into a folder of its own, then moved in: a `cairn` started meanwhile runs the old
  // bundle whole (chunk names carry a hash, and the entry and its inputs are moved last).
  const scratch = join(distFolder, `.build-${process.pid}-${randomBytes(4).toString("hex")}`);
  mkdirSync(scratch, { recursive: true });
  // Each source's size and time as the build read it: a file edited while the build runs then
  // reads as changed to the next `cairn`, which builds again.
  const sources = new Map();
  try {
    const result = await build({
      input: join(cliFolder, "main.ts"),
      platform: "node",
      resolve: { conditionNames: ["cairn-source", "node", "import", "default"] },
      transform: { target: "node20" },
      // Ink's optional devtools import, used only with DEV=true.
      external: ["react-devtools-core"],
      plugins: [
        {
          name: "cairn-cli",
          load(id) {
            return id === join(cliFolder, "mcp-in-process.ts")
              ? { code: inProcessStub, moduleType: "js" }
              : null;
          },
          transform(code, id) {
            if (isLocalModule(id)) sources.set(id, stamp(id));
            // A source file's folder, seen from the bundle in cli/dist (cli/mcp-init.ts finds the checkout by it).
            if (!isLocalModule(id) || !code.includes("import.meta.dirname")) return null;
            const folder = relative(distFolder, dirname(id)).split(sep).join("/");
            return code.replaceAll(
              "import.meta.dirname",
              `(import.meta.dirname + ${JSON.stringify(`/${folder}`)})`,
            );
          },
        },
      ],
      output: {
        dir: scratch,
        format: "esm",
        entryFileNames: "cairn.js",
        chunkFileNames: "[name]-[hash].js",
        minify: true,
      },
      logLevel: "silent",
    });
    const inputs = [...sources.values(), stamp(join(checkout, "package-lock.json"))];
    writeFileSync(join(scratch, "inputs.json"), `${JSON.stringify(inputs)}\n`);
    const written = result.output.map((chunk) => chunk.fileName);
    for (const name of written.filter((name) => name !== "cairn.js")) {
      renameSync(join(scratch, name), join(distFolder, name));
    }
    renameSync(join(scratch, "cairn.js"), entryFile);
    renameSync(join(scratch, "inputs.json"), inputsFile);
    removeOldChunks(new Set([...written, "inputs.json"]));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Chunks of earlier builds, once no `cairn` started before this build can still be loading them. */
function removeOldChunks(current) {
  const hourAgo = Date.now() - 3_600_000;
  for (const name of readdirSync(distFolder)) {
    const path = join(distFolder, name);
    if (current.has(name)) continue;
    try {
      if (statSync(path).mtimeMs < hourAgo) rmSync(path, { recursive: true, force: true });
    } catch {}
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildBundle();
  process.stdout.write(`built ${relative(process.cwd(), entryFile)}\n`);
}
