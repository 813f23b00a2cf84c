/**
 * The built `cairn` (cli/dist, from cli/bin/build-bundle.js) on the Node a user has: the bundle
 * itself runs `--help`, `whoami` and `memory recall` against a live server on Node 20 and 22, where
 * no Node 24 exists to hand over to, and forwards MCP over stdio on Node 20; the installed bin
 * (cli/bin/cairn.js) answers on Node 20 from the bundle; the bundle holds none of the server's code.
 * Start-up time is measured by test/bench/cli-startup.ts, not here.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, startLiveServer } from "../mcp/mcp-harness.ts";
import { jsRuntimes } from "../support/js-runtimes.ts";
import { signUpWithKey } from "../support/processes.ts";

const root = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);
const bundle = join(root, "cli/dist/cairn.js");
const bin = join(root, "cli/bin/cairn.js");
const olderNodes = jsRuntimes().filter((runtime) => runtime.name === "Node 20" || runtime.name === "Node 22");

describe("the built cairn command", () => {
  let server: LiveServer;
  let home: string;
  let environment: Record<string, string>;
  let email: string;

  beforeAll(async () => {
    await run(process.execPath, [join(root, "cli/bin/build-bundle.js")]);
    server = await startLiveServer();
    home = await mkdtemp(join(tmpdir(), "cairn-built-cli-"));
    email = `built-cli-${crypto.randomUUID()}@example.com`;
    const { key } = await signUpWithKey(server.baseUrl, email);
    // No node_modules/.bin on PATH: nothing but the Node under test.
    environment = {
      PATH: "/usr/bin:/bin",
      HOME: home,
      XDG_CONFIG_HOME: join(home, "xdg"),
      CAIRN_BASE_URL: server.baseUrl,
      CAIRN_API_KEY: key,
    };
    await run(process.execPath, [bundle, "memory", "remember", "The deploy script lives in ops/deploy.sh"], {
      env: environment,
    });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it.each(olderNodes.map((runtime) => [runtime.name, runtime.command] as const))(
    "runs on %s in its own process",
    async (_name, node) => {
      const help = await run(node, [bundle, "--help"], { env: environment });
      expect(help.stdout).toMatch(/^Usage: cairn/);
      const whoami = await run(node, [bundle, "whoami", "--json"], { env: environment });
      expect(JSON.parse(whoami.stdout).account.email).toBe(email);
      const recall = await run(node, [bundle, "memory", "recall", "where is the deploy script?", "--json"], {
        env: environment,
      });
      expect(JSON.stringify(JSON.parse(recall.stdout))).toContain("ops/deploy.sh");
    },
    60_000,
  );

  it("holds none of the server's code: `mcp serve --data-dir` loads it from source", async () => {
    const inputs: { file: string }[] = JSON.parse(await readFile(join(root, "cli/dist/inputs.json"), "utf8"));
    const files = inputs.map((input) => relative(root, join(root, "cli/dist", input.file)));
    expect(files).toContain("cli/main.ts");
    expect(files).toContain("sdks/js/src/client.ts");
    expect(
      files.filter((file) => !file.startsWith("cli/") && !file.startsWith("sdks/js/src/")).sort(),
    ).toEqual([
      "core/version.ts",
      "package-lock.json",
      "transports/mcp/profiles.ts",
      "transports/mcp/stdio.ts",
      "transports/mcp/tool-server.ts",
    ]);
  });

  it("forwards MCP over stdio on Node 20 (`cairn mcp serve`, the MCP client loaded lazily)", async () => {
    const [node20] = olderNodes;
    const client = new Client({ name: "built-cli-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: node20.command,
        args: [bundle, "mcp", "serve", "--tools", "memory"],
        env: environment,
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("recall");
    } finally {
      await client.close();
    }
  }, 60_000);

  // Node loads its fetch (undici, node:http2) on first use: about 80 ms of CPU that a one-shot
  // command paid before its request went over node:http (cli/json-fetch.ts).
  it.each(
    [...olderNodes, { name: "Node 24", command: process.execPath }].map(
      (runtime) => [runtime.name, runtime.command] as const,
    ),
  )(
    "answers whoami and memory recall on %s without loading Node's fetch",
    async (_name, node) => {
      const probe = join(home, "loaded-modules.cjs");
      await writeFile(
        probe,
        'const loaded = () => process.moduleLoadList.filter((name) => /undici|http2/.test(name)).join(",");\n' +
          'process.on("exit", () => process.stderr.write("loaded: " + loaded() + "\\n"));\n',
      );
      for (const args of [["whoami"], ["memory", "recall", "where is the deploy script?"]]) {
        const result = await run(node, ["--require", probe, bin, ...args], { env: environment });
        expect(result.stdout).toMatch(/ops\/deploy\.sh|@example\.com/);
        expect(result.stderr).toBe("loaded: \n");
      }
    },
    60_000,
  );

  it("is what the installed bin runs on Node 20", async () => {
    const [node20] = olderNodes;
    const whoami = await run(node20.command, [bin, "whoami"], { env: environment });
    expect(whoami.stdout).toContain(email);
    expect(whoami.stderr).toBe("");
  }, 60_000);
});
