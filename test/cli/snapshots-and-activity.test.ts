/**
 * Snapshots and the activity feed from the CLI against a live server with real sandboxes:
 * `cairn snapshot create|ls|get|restore|rm`, `cairn log` with an exec's exit code, and
 * `cairn watch --json` printing a new entry as it happens.
 */
import { spawn } from "node:child_process";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cliEntry, type LiveServer, startLiveServer } from "../mcp/mcp-harness.ts";
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

it("snapshots, restores and shows a session's activity", { timeout: 120_000 }, async () => {
  const session = await runJson<{ id: string }>(["session", "create", "--lifetime-minutes", "10"], { env });
  await runOk(["exec", "--session", session.id, "echo one > a.txt"], { env });
  const snapshot = await runJson<{ id: string; label: string }>(
    ["snapshot", "create", "--session", session.id, "--label", "cli"],
    { env },
  );
  expect(snapshot.label).toBe("cli");
  expect((await runOk(["snapshot", "ls", "--session", session.id], { env })).stdout).toContain(snapshot.id);
  expect((await runOk(["snapshot", "get", snapshot.id], { env })).stdout).toContain("cli");
  const restored = await runJson<{ id: string }>(["snapshot", "restore", snapshot.id], { env });
  expect((await runOk(["exec", "--session", restored.id, "cat a.txt"], { env })).stdout).toBe("one\n");

  const log = await runJson<{ entries: Array<{ kind: string; subject: string; exit_code: number | null }> }>(
    ["log", "--session", session.id],
    { env },
  );
  expect(log.entries.map((entry) => [entry.kind, entry.subject])).toEqual([
    ["snapshot", "cli"],
    ["command", "echo one > a.txt"],
  ]);
  expect((await runOk(["log", "--session", session.id], { env })).stdout).toContain(
    "command/exec echo one > a.txt exit 0",
  );

  // The CLI's entry point, as the harness runs it, following the feed until it prints one entry.
  const watcher = spawn(process.execPath, [cliEntry, "watch", "--json", "--session", session.id], {
    env: { ...process.env, ...env },
  });
  let printed = "";
  const first = new Promise<string>((resolve) => {
    watcher.stdout.on("data", (chunk: Buffer) => {
      printed += chunk.toString();
      if (printed.includes("\n")) resolve(printed);
    });
  });
  // The watch follows new entries from when it connects: exec until it has printed one (each exec
  // is the same, so whichever it saw first is the entry asserted), never a pause for it to connect.
  for (let tries = 0; tries < 100 && !printed.includes("\n"); tries++)
    await runCairn(["exec", "--session", session.id, "exit 4"], { env });
  const line = await first;
  watcher.kill();
  expect(JSON.parse(line.split("\n")[0])).toMatchObject({ kind: "command", subject: "exit 4", exit_code: 4 });

  await runOk(["snapshot", "rm", snapshot.id], { env });
  await runOk(["session", "rm", restored.id], { env });
  await runOk(["session", "rm", session.id], { env });
});
