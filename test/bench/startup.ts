/**
 * Time from process start to the first successful GET /health, for `node platform/serve.ts`
 * and for `npm start`, on a fresh data directory (migrations included). Prints figures; run with
 * `npx node test/bench/startup.ts`.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "../support/processes.ts";

const root = resolve(import.meta.dirname, "../..");

async function measure(command: string, args: string[]): Promise<number> {
  const dataDir = await mkdtemp(join(tmpdir(), "cairn-startup-"));
  const port = await freePort();
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, SVC_DATA_DIR: dataDir, SVC_PORT: String(port), SVC_LOG_LEVEL: "warn" },
    stdio: "ignore",
    // Its own process group, so stopping `npm start` also stops the server npm started.
    detached: true,
  });
  try {
    for (;;) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return performance.now() - started;
      } catch {
        // not yet listening
      }
      if (performance.now() - started > 10_000) throw new Error("no answer within 10 s");
      await new Promise((done) => setTimeout(done, 5));
    }
  } finally {
    const exited = new Promise((done) => child.once("exit", done));
    process.kill(-(child.pid as number), "SIGTERM");
    await exited;
    await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

for (const [name, command, args] of [
  ["node platform/serve.ts", process.execPath, ["platform/serve.ts"]],
  ["npm start", "npm", ["start", "--silent"]],
] as const) {
  const runs: number[] = [];
  for (let run = 0; run < 5; run++) runs.push(await measure(command, [...args]));
  runs.sort((left, right) => left - right);
  console.log(
    `${name}: first /health after ${runs.map((value) => value.toFixed(0)).join(", ")} ms (median ${runs[2].toFixed(0)} ms)`,
  );
}
