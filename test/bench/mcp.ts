/**
 * MCP benchmark against the real Node server (platform/serve.ts) in a child process, with the
 * SDK's client over HTTP. Prints:
 * - the size of tools/list in characters (the JSON an agent's context receives) for every
 *   profile; target ≤ 20,000 characters for all 31 tools;
 * - recall latency p50/p95 as an MCP tools/call and as GET /v1/memory/search, for the same
 *   queries in the same run, interleaved; target: MCP within 1.5 ms of REST.
 * Run with `npx node test/bench/mcp.ts` (BENCH_MEMORIES sets the corpus size, default 5,000).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { postJson, signUpWithKey, startServer } from "../support/processes.ts";
import { createCorpus } from "./memory-corpus.ts";

const root = resolve(import.meta.dirname, "../..");
const memoryCount = Number(process.env.BENCH_MEMORIES ?? 5_000);
const rounds = 1_000;
const contractToolCount = 31;

async function connect(baseUrl: string, key: string, tools: string) {
  const client = new Client({ name: "bench", version: "1" });
  const url = new URL(`${baseUrl}/mcp`);
  url.searchParams.set("tools", tools);
  await client.connect(
    new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${key}` } } }),
  );
  return client;
}

function percentile(sorted: number[], fraction: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

const dataDir = await mkdtemp(join(tmpdir(), "cairn-bench-mcp-"));
const server = await startServer(process.execPath, [join(root, "platform/serve.ts")], {
  SVC_DATA_DIR: dataDir,
  SVC_MEMORY_RATE_LIMIT_PER_MINUTE: "100000000",
  SVC_LOG_LEVEL: "warn",
});
try {
  const { key } = await signUpWithKey(server.baseUrl, "bench@example.com");

  console.log("== tools/list size (characters of the JSON result)");
  for (const profile of ["all", "memory", "sandbox"]) {
    const client = await connect(server.baseUrl, key, profile);
    const listed = await client.listTools();
    const characters = JSON.stringify(listed).length;
    const count = listed.tools.length;
    const perTool = Math.round(characters / count);
    const note =
      profile === "all"
        ? `; at this average, ${contractToolCount} tools ≈ ${perTool * contractToolCount} (target ≤ 20,000)`
        : "";
    console.log(`${profile.padEnd(7)} ${count} tools: ${characters} characters (${perTool} per tool${note})`);
    await client.close();
  }

  const corpus = createCorpus(7);
  for (let start = 0; start < memoryCount; start += 500) {
    const memories = Array.from({ length: Math.min(500, memoryCount - start) }, () => corpus.memory());
    await postJson(`${server.baseUrl}/v1/memory/import`, { memories }, key);
  }
  const queries = Array.from({ length: rounds }, () => corpus.query());
  const client = await connect(server.baseUrl, key, "memory");
  const rest = async (index: number) => {
    const { q, scope } = queries[index];
    const parameters = new URLSearchParams({ q, scope: scope ?? "default" });
    const response = await fetch(`${server.baseUrl}/v1/memory/search?${parameters}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    if (!response.ok) throw new Error(`REST recall: ${response.status}`);
    return ((await response.json()) as { memories: unknown[] }).memories.length;
  };
  const mcp = async (index: number) => {
    const { q, scope } = queries[index];
    const result = await client.callTool({
      name: "recall",
      arguments: { query: q, scope: scope ?? "default" },
    });
    if (result.isError) throw new Error(`MCP recall: ${JSON.stringify(result.content)}`);
    return (result.structuredContent as { memories: unknown[] }).memories.length;
  };
  // Warm both paths, and check that they answer the same.
  for (let index = 0; index < 100; index++) {
    const [viaRest, viaMcp] = [await rest(index), await mcp(index)];
    if (viaRest !== viaMcp) throw new Error(`query ${index}: REST found ${viaRest}, MCP ${viaMcp}`);
  }
  const timings = { rest: [] as number[], mcp: [] as number[] };
  for (let index = 0; index < rounds; index++) {
    // Interleaved, alternating which goes first, so drift affects both alike.
    const order = index % 2 === 0 ? (["rest", "mcp"] as const) : (["mcp", "rest"] as const);
    for (const transport of order) {
      const started = performance.now();
      await (transport === "rest" ? rest(index) : mcp(index));
      timings[transport].push(performance.now() - started);
    }
  }
  console.log(`\n== recall over ${memoryCount} memories, ${rounds} queries each, interleaved`);
  const figures: Record<string, { p50: number; p95: number }> = {};
  for (const transport of ["rest", "mcp"] as const) {
    const sorted = timings[transport].toSorted((a, b) => a - b);
    figures[transport] = { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95) };
    const label = transport === "rest" ? "REST GET /v1/memory/search" : "MCP tools/call recall (HTTP)";
    console.log(
      `${label.padEnd(30)} p50 ${figures[transport].p50.toFixed(2)} ms, p95 ${figures[transport].p95.toFixed(2)} ms`,
    );
  }
  console.log(
    `MCP − REST: p50 ${(figures.mcp.p50 - figures.rest.p50).toFixed(2)} ms, p95 ${(figures.mcp.p95 - figures.rest.p95).toFixed(2)} ms (target: within 1.5 ms)`,
  );
  await client.close();
} finally {
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}
