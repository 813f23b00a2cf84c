/**
 * Background processes from the CLI against a live server with real sandboxes: `cairn start`
 * prints a process id, `cairn ps` lists it, `cairn logs -f` follows its output (the SSE stream)
 * to its end and exits with its exit code, `cairn logs` prints what it wrote, `cairn kill` stops
 * one that would run on.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type LiveServer, startLiveServer } from "../mcp/mcp-harness.ts";
import { type CliHome, createHome, runCairn, runJson, runOk, signUpThroughCli } from "./cli-harness.ts";

let server: LiveServer;
let cli: CliHome;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startLiveServer({ SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000" });
  cli = await createHome();
  env = cli.environment();
  await signUpThroughCli(cli, server.baseUrl);
});
afterAll(async () => {
  await server.close();
  await cli.remove();
});

it("starts, lists, follows, prints and kills background processes", { timeout: 120_000 }, async () => {
  await runJson(["session", "create", "--lifetime-minutes", "10"], { env });
  const started = await runOk(
    ["start", "--", "for i in 1 2 3; do echo out $i; echo err $i >&2; done; exit 3"],
    {
      env,
    },
  );
  const processId = started.stdout.trim();
  expect(processId).toMatch(/^proc_[0-9a-f]{32}$/);
  const followed = await runCairn(["logs", "-f", processId], { env });
  expect([followed.code, followed.stdout, followed.stderr]).toEqual([
    3,
    "out 1\nout 2\nout 3\n",
    "err 1\nerr 2\nerr 3\n",
  ]);
  const printed = await runOk(["logs", processId], { env });
  expect(printed.stdout).toBe("out 1\nout 2\nout 3\n");
  const sleeper = (await runOk(["start", "sleep", "1000"], { env })).stdout.trim();
  const listed = await runJson<{
    processes: Array<{ process_id: string; status: string; exit_code: number | null }>;
  }>(["ps"], { env });
  expect(listed.processes.map((entry) => [entry.process_id, entry.status, entry.exit_code])).toEqual([
    [processId, "exited", 3],
    [sleeper, "running", null],
  ]);
  const table = await runOk(["ps"], { env });
  expect(table.stdout).toContain(sleeper);
  const killed = await runJson<{ status: string }>(["kill", sleeper], { env });
  expect(killed.status).toBe("killed");
});
