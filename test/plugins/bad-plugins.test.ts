/**
 * A plugin that cannot load stops the start (docs/plugins.md#enabling): the real server on Node
 * and on Deno exits with 1 and prints one line on stderr naming the plugin and the reason, for a
 * module that fails to import, a default export that is no plugin, a name that collides (with
 * another plugin, a profile or a built-in plugin), a port no setting picks and a schema a model
 * could not read.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverRuntimes } from "../support/processes.ts";

const root = resolve(import.meta.dirname, "../..");

/** Starts the server with SVC_PLUGINS and waits for it to exit (a server that starts is a failure). */
function start(runtime: (typeof serverRuntimes)[number], plugins: string, dataDir: string) {
  return new Promise<{ code: number | null; stderr: string }>((resolvePromise, reject) => {
    const child = spawn(runtime.command, runtime.args, {
      cwd: root,
      env: {
        ...process.env,
        SVC_DATA_DIR: dataDir,
        SVC_PORT: "0",
        SVC_LOG_LEVEL: "warn",
        SVC_PLUGINS: plugins,
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    // Bounded: a server that does not stop started, which the assertion on the code reports.
    const timer = setTimeout(() => child.kill("SIGKILL"), 25_000);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stderr });
    });
  });
}

const cases = [
  {
    what: "a module that throws while it is imported",
    plugins: "./test/plugins/fixtures/throws-on-import",
    line: "cairn: cannot load plugin ./test/plugins/fixtures/throws-on-import: import failed: the plugin's configuration file is missing",
  },
  {
    what: "a default export that is not made with definePlugin",
    plugins: "./test/plugins/fixtures/not-a-plugin",
    line: "cairn: cannot load plugin ./test/plugins/fixtures/not-a-plugin: its default export is not a plugin made with definePlugin",
  },
  {
    what: "a plugin name another plugin already took",
    plugins: "./examples/plugins/todo,./test/plugins/fixtures/second-todo",
    line: 'cairn: cannot load plugin ./test/plugins/fixtures/second-todo: its name "todo" is taken by ./examples/plugins/todo',
  },
  {
    what: "a tool name declared twice in one plugin",
    plugins: "./test/plugins/fixtures/same-tool-twice",
    line: "cairn: cannot load plugin ./test/plugins/fixtures/same-tool-twice: tool name twice.echo is declared twice",
  },
  {
    what: "a plugin name a built-in profile uses",
    plugins: "./test/plugins/fixtures/named-memory",
    line: 'cairn: cannot load plugin ./test/plugins/fixtures/named-memory: its name "memory" is reserved',
  },
  {
    what: "a plugin name a built-in plugin has",
    plugins: "./test/plugins/fixtures/named-storage",
    line: 'cairn: cannot load plugin ./test/plugins/fixtures/named-storage: its name "storage" is taken by built-in storage',
  },
  {
    what: "a port offered under a name no setting picks",
    plugins: "./test/plugins/fixtures/port-nobody-picks",
    line: 'cairn: cannot load plugin ./test/plugins/fixtures/port-nobody-picks: ports.sandboxRuntime offers "firecracker", which no setting picks (local, kubernetes)',
  },
  {
    what: "an input field without a description",
    plugins: "./test/plugins/fixtures/undescribed-field",
    line: 'cairn: cannot load plugin ./test/plugins/fixtures/undescribed-field: tool "echo": input fields without .describe(): text',
  },
];

describe.each(serverRuntimes)("a plugin that cannot load, on $name", (runtime) => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "cairn-bad-plugin-"));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it.each(cases)("stops the start with one line: $what", async ({ plugins, line }) => {
    const { code, stderr } = await start(runtime, plugins, dataDir);
    expect(stderr).toBe(`${line}\n`);
    expect(code).toBe(1);
  });

  it("names a package that is not installed", async () => {
    const { code, stderr } = await start(runtime, "cairn-plugin-not-installed", dataDir);
    expect(stderr.split("\n")).toHaveLength(2);
    expect(stderr).toMatch(
      /^cairn: cannot load plugin cairn-plugin-not-installed: import failed: .*cairn-plugin-not-installed/,
    );
    expect(code).toBe(1);
  });
});
