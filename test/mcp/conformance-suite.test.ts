/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
 * package.json) in server mode against the real server's /mcp, for every scenario that applies to
 * Cairn. The runner cannot send an `Authorization` header, so it talks to a small proxy that adds
 * the API key and passes everything else through as sent (Host and Origin included, which the
 * DNS-rebinding scenario is about). The scenarios left out need the suite's own test tools,
 * prompts or resources, or a client feature Cairn's server does not use (docs/mcp.md#conformance).
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type LiveServer, root, startLiveServer } from "./mcp-harness.ts";

const applicableScenarios = [
  "server-initialize",
  "ping",
  "logging-set-level",
  "completion-complete",
  "tools-list",
  "server-sse-multiple-streams",
  "server-sse-polling",
  "dns-rebinding-protection",
];

let server: LiveServer;
let proxy: Server;
let proxyUrl: string;
let output: string;

beforeAll(async () => {
  server = await startLiveServer();
  const { key } = await createAccount(server.baseUrl);
  const upstream = new URL(server.baseUrl);
  proxy = createServer((incoming, answer) => {
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, authorization: `Bearer ${key}` },
      },
      (response) => {
        answer.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(answer);
      },
    );
    forwarded.on("error", () => answer.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyUrl = `http://localhost:${(proxy.address() as AddressInfo).port}/mcp`;
  output = await mkdtemp(join(tmpdir(), "cairn-conformance-"));
}, 60_000);

afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((resolve) => proxy?.close(resolve));
  await server?.close();
  await rm(output, { recursive: true, force: true });
});

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO";
  errorMessage?: string;
}

/** Runs one scenario with the suite's own CLI; resolves to its checks. */
async function runScenario(scenario: string): Promise<Check[]> {
  const directory = join(output, scenario);
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      [
        join(root, "node_modules/@modelcontextprotocol/conformance/dist/index.js"),
        "server",
        "--url",
        proxyUrl,
        "--scenario",
        scenario,
        "-o",
        directory,
      ],
      { timeout: 120_000 },
      // The runner exits non-zero when a check fails: the checks themselves say which.
      (error) => (error?.killed ? reject(error) : resolve()),
    );
  });
  const [run] = await readdir(directory);
  return JSON.parse(await readFile(join(directory, run, "checks.json"), "utf8")) as Check[];
}

describe("the official MCP conformance suite, server mode", () => {
  it.each(applicableScenarios)(
    "passes %s",
    async (scenario) => {
      const checks = await runScenario(scenario);
      const failed = checks.filter((check) => check.status === "FAILURE" || check.status === "WARNING");
      expect(failed.map((check) => `${check.id}: ${check.errorMessage}`)).toEqual([]);
    },
    130_000,
  );
});
