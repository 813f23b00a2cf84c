/**
 * How long a `cairn` command takes from process start to exit, as a person runs it (the installed
 * bin, cli/bin/cairn.js, on the bundle it builds), beside `node -e 0` on the same Node: p50 and p90
 * of `--help`, `whoami` and `memory recall` against a live server, on the machine's own Node (the
 * first `node` on PATH outside node_modules, else /usr/bin/node) and on this Node 24. Run with
 * `npx node test/bench/cli-startup.ts [runs]` (default 20 runs each). Needs GNU time (/usr/bin/time).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startLiveServer } from "../mcp/mcp-harness.ts";
import { signUpWithKey } from "../support/processes.ts";

const root = resolve(import.meta.dirname, "../..");
const bin = join(root, "cli/bin/cairn.js");
const runs = Number(process.argv[2] ?? 20);

function systemNode(): string {
  for (const folder of (process.env.PATH ?? "").split(":")) {
    if (folder.includes("node_modules")) continue;
    const candidate = join(folder, "node");
    if (spawnSync(candidate, ["--version"]).status === 0) return candidate;
  }
  return "/usr/bin/node";
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

/**
 * Wall-clock p50 and p90, and the p50 of the process's own CPU time (user + system, from GNU
 * time), which a busy machine inflates far less than the wall clock.
 */
function time(command: string, args: string[], env: NodeJS.ProcessEnv) {
  const wall: number[] = [];
  const cpu: number[] = [];
  const cpuFile = join(home, "cpu.txt");
  for (let index = 0; index < runs + 1; index++) {
    const started = performance.now();
    const result = spawnSync("/usr/bin/time", ["-f", "%U %S", "-o", cpuFile, command, ...args], {
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    const elapsed = performance.now() - started;
    if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed: ${result.stderr}`);
    if (index === 0) continue; // the first run warms the disk cache
    wall.push(elapsed);
    const [user, system] = readFileSync(cpuFile, "utf8").trim().split(" ").map(Number);
    cpu.push((user + system) * 1000);
  }
  wall.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { p50: percentile(wall, 0.5), p90: percentile(wall, 0.9), cpu: percentile(cpu, 0.5) };
}

execFileSync(process.execPath, [join(root, "cli/bin/build-bundle.js")]);
const home = await mkdtemp(join(tmpdir(), "cairn-bench-home-"));
const server = await startLiveServer();
try {
  const { key } = await signUpWithKey(server.baseUrl, `bench-${crypto.randomUUID()}@example.com`);
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, "xdg"),
    CAIRN_BASE_URL: server.baseUrl,
    CAIRN_API_KEY: key,
  };
  execFileSync(process.execPath, [bin, "memory", "remember", "The deploy script lives in ops/deploy.sh"], {
    env,
  });
  const cases: [string, string[]][] = [
    ["node -e 0", ["-e", "0"]],
    ["cairn --help", [bin, "--help"]],
    ["cairn whoami", [bin, "whoami"]],
    ["cairn memory recall", [bin, "memory", "recall", "where is the deploy script?"]],
  ];
  for (const node of [systemNode(), process.execPath]) {
    const version = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
    console.log(`\n${node} (${version}), ${runs} runs each`);
    console.log("command                 p50 ms   p90 ms   CPU p50 ms");
    for (const [name, args] of cases) {
      const { p50, p90, cpu } = time(node, args, env);
      const figures = [p50.toFixed(0).padStart(7), p90.toFixed(0).padStart(8), cpu.toFixed(0).padStart(12)];
      console.log(`${name.padEnd(22)} ${figures.join(" ")}`);
    }
  }
} finally {
  await server.close();
  await rm(home, { recursive: true, force: true });
}
