/**
 * One account must not stall the server for the others. Against the real server (local
 * bubblewrap sandboxes, SQLite in a temporary data dir, or PostgreSQL with
 * CAIRN_NOISY_DATABASE=postgresql and SVC_TEST_DATABASE_URL set), a bystander account B calls
 * GET /v1/account and a recall in a loop on a thread of its own (a client apart from A's), first
 * alone (the idle baseline), then while account A
 * sends the most expensive calls the API allows with 8 concurrent clients (test/bench/
 * noisy-calls.ts lists them: worst-case grep, glob and allowlist patterns, 16 MiB imports that
 * detect relations, 256 KiB ingests, 1 MiB exec output, grep and glob over 50,000 files,
 * 400-character recalls). Prints B's p50/p99/max in both runs, the server's event-loop delay
 * (from /metrics) in both, and A's calls per kind (ok / 429 / other, with the other statuses:
 * the allowlist call is refused with 403 once its pattern has run) so a reader sees A was busy.
 * A's buckets are raised (printed) so the CPU paths run instead of answering 429.
 *
 * Each phase lasts CAIRN_NOISY_SECONDS (60); CAIRN_NOISY_CLIENTS (8) sets A's clients and
 * CAIRN_NOISY_KINDS (a comma list of kind names) narrows A's calls. CAIRN_NOISY_SERVER_FLAGS
 * passes Node flags to the server (e.g. `--cpu-prof --cpu-prof-dir=/tmp/cairn-profile`), and
 * CAIRN_NOISY_SERVER_OUTPUT=1 prints the server's log at the end.
 * Target from the issue: B's p99 under 50 ms and within 3x of idle on a 2-core machine. A
 * benchmark: it prints figures and never fails on them. Every call has a timeout and the server is
 * killed if it does not stop, so the run ends even when a pattern stalls the server.
 * Run with `npx node test/bench/noisy-neighbour.ts`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createTestDatabase } from "../support/platforms.ts";
import { signUpWithKey, startServer } from "../support/processes.ts";
import { allowlistRules, noisyKinds, recallQuery, setUpFilesCommand } from "./noisy-calls.ts";
import {
  bystanderOnThread,
  describeStatuses,
  linkJobsQueued,
  loopDelay,
  ms,
  noisy,
  percentile,
  sendOk,
  stopServer,
} from "./noisy-clients.ts";

const root = resolve(import.meta.dirname, "../..");
const seconds = Number(process.env.CAIRN_NOISY_SECONDS ?? 60);
const clients = Number(process.env.CAIRN_NOISY_CLIENTS ?? 8);
const database = process.env.CAIRN_NOISY_DATABASE ?? "sqlite";
const wantedKinds = process.env.CAIRN_NOISY_KINDS?.split(",").map((kind) => kind.trim());
const serverFlags = (process.env.CAIRN_NOISY_SERVER_FLAGS ?? "").split(" ").filter(Boolean);
// Raised so A's calls reach the work they ask for; B's calls are not rate limited (GETs).
const limits = {
  SVC_MEMORY_RATE_LIMIT_PER_MINUTE: "1000000",
  SVC_SANDBOX_RATE_LIMIT_PER_MINUTE: "1000000",
};

const dataDir = await mkdtemp(join(tmpdir(), "cairn-bench-noisy-"));
const postgres = database === "postgresql" ? await createTestDatabase() : undefined;
// As `npm start` runs it: the young generation's size sets how long a scavenge stops the thread.
const server = await startServer(
  process.execPath,
  ["--max-semi-space-size=16", ...serverFlags, join(root, "platform/serve.ts")],
  {
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: "warn",
    ...limits,
    ...(postgres ? { SVC_DATABASE_URL: postgres.url } : {}),
  },
);
try {
  const base = server.baseUrl;
  const [noisyAccount, bystanderAccount] = [await signUpWithKey(base), await signUpWithKey(base)];
  // B's memories: what its recalls rank.
  const bystanderMemories = Array.from({ length: 300 }, (_, index) => ({
    content: `Note ${index}: ${recallQuery().slice(0, 120 + (index % 5) * 40)}`,
    scope: index % 3 === 0 ? "work" : "default",
  }));
  await sendOk(base, bystanderAccount.key, {
    method: "POST",
    path: "/v1/memory/import",
    body: JSON.stringify({ memories: bystanderMemories }),
  });
  // The sandbox and its files only when a kind needs them (setting up 50,000 files takes a while).
  const memoryKinds = ["import", "ingest", "recall"];
  const needsSandbox = Object.keys(noisyKinds("")).some(
    (name) => !memoryKinds.includes(name) && (wantedKinds === undefined || wantedKinds.includes(name)),
  );
  const sessionId = needsSandbox
    ? (
        JSON.parse(
          await sendOk(base, noisyAccount.key, { method: "POST", path: "/v1/sandboxes", body: "{}" }),
        ) as { id: string }
      ).id
    : "";
  const allKinds = noisyKinds(sessionId);
  const kinds = Object.fromEntries(
    Object.entries(allKinds).filter(([name]) => wantedKinds === undefined || wantedKinds.includes(name)),
  );
  const fileCount = needsSandbox
    ? (
        JSON.parse(
          await sendOk(base, noisyAccount.key, {
            method: "POST",
            path: `/v1/sandboxes/${sessionId}/exec`,
            body: JSON.stringify({ command: setUpFilesCommand, timeout: 100 }),
          }),
        ) as { stdout: string }
      ).stdout.trim()
    : "no";
  if ("allowlist exec" in kinds)
    await sendOk(base, noisyAccount.key, {
      method: "PUT",
      path: "/v1/account/allowed-commands",
      body: JSON.stringify({ rules: allowlistRules }),
    });
  // One import first: the timed ones then detect relations against stored memories.
  if ("import" in kinds) await sendOk(base, noisyAccount.key, allKinds.import());
  // The idle run starts once set-up work is done: relation detection of what was imported.
  for (let waited = 0; waited < 600 && (await linkJobsQueued(base)) > 0; waited++)
    await new Promise((resolve) => setTimeout(resolve, 500));

  console.log(
    `${database}, ${seconds} s per phase, ${clients} noisy clients, ${fileCount} files in the noisy sandbox`,
  );
  console.log(
    `limits: ${Object.entries(limits)
      .map(([name, value]) => `${name}=${value}`)
      .join(
        ", ",
      )}; other limits default (body 16 MiB, import 500 memories / 2,000 relations, ingest 256 KiB)`,
  );
  console.log(`noisy kinds: ${Object.keys(kinds).join(", ")}`);

  await loopDelay(base);
  // B runs on a thread of its own, so what it measures is the server, not this process's noisy clients.
  const idle = await bystanderOnThread(base, bystanderAccount.key, seconds);
  const idleDelay = await loopDelay(base);
  const deadline = performance.now() + seconds * 1000;
  const noisyRun = noisy(base, noisyAccount.key, kinds, { clients, deadline });
  const beside = await bystanderOnThread(base, bystanderAccount.key, seconds);
  const noisyDelay = await loopDelay(base);
  const counts = await noisyRun;

  const row = (label: string, values: number[], failed?: number) =>
    `  ${label.padEnd(32)}${String(values.length).padStart(6)}${ms(percentile(values, 0.5))}${ms(percentile(values, 0.99))}${ms(Math.max(...values))}${failed === undefined ? "" : `   failed ${failed}`}`;
  console.log(
    `\n${"bystander B".padEnd(32)} calls${["p50", "p99", "max"].map((name) => name.padStart(11)).join("")}`,
  );
  for (const [label, run] of [
    ["idle", idle],
    ["beside noisy A", beside],
  ] as const) {
    console.log(row(`${label}: all`, [...run.account, ...run.recall], run.failed));
    console.log(row(`${label}: GET /v1/account`, run.account));
    console.log(row(`${label}: recall`, run.recall));
  }
  const p99 = (run: typeof idle) => percentile([...run.account, ...run.recall], 0.99);
  console.log(
    `  target: p99 < 50 ms and within 3x of idle: ${ms(p99(beside)).trim()} vs ${ms(p99(idle)).trim()} idle (${(p99(beside) / p99(idle)).toFixed(1)}x)`,
  );
  console.log(
    `\n${"server event-loop delay".padEnd(38)}${["p50", "p99", "max"].map((name) => name.padStart(11)).join("")}`,
  );
  for (const [label, delay] of [
    ["idle", idleDelay],
    ["noisy", noisyDelay],
  ] as const) {
    console.log(
      `  ${`${label}, since last scrape`.padEnd(38)}${ms(delay.sinceScrape.p50)}${ms(delay.sinceScrape.p99)}${ms(delay.sinceScrape.max)}`,
    );
    console.log(
      `  ${`${label}, last minute`.padEnd(38)}${ms(delay.window.p50)}${ms(delay.window.p99)}${ms(delay.window.max)}`,
    );
  }
  console.log(
    `\n${"noisy A, per kind".padEnd(20)}    ok    429  other${["p50", "max"].map((name) => name.padStart(11)).join("")}`,
  );
  for (const [name, count] of counts)
    console.log(
      `  ${name.padEnd(20)}${String(count.ok).padStart(6)}${String(count.limited).padStart(7)}${String(count.other).padStart(7)}${ms(percentile(count.latencies, 0.5))}${ms(Math.max(...count.latencies))}${describeStatuses(count.statuses)}`,
    );
  // The server's own log (warnings and errors), for a run that looks wrong.
  if (process.env.CAIRN_NOISY_SERVER_OUTPUT === "1") console.log(`\nserver output:\n${server.output()}`);
} catch (error) {
  console.error(`server output:\n${server.output().slice(-4000)}`);
  throw error;
} finally {
  await stopServer(server.process);
  await postgres?.drop();
  await rm(dataDir, { recursive: true, force: true });
}
