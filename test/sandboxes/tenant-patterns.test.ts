/**
 * One account's catastrophic patterns froze the server for every account: JavaScript's
 * backtracking engine ran grep's `^(a|a)*$` over 40 a's and `!` for hours, glob's
 * `*a*a*a*a*a*a*a*a*b` against a name of 80 a's for minutes, and an allowlist argument pattern
 * on every exec, all on the event loop. Each case here sends the attack and, at the same time, a
 * second account's request; both must be answered, and the attack answered correctly. Against
 * the old engine the server never answers either within the test's time, and the test fails.
 * A real server process (so this process stays free to notice), real sandboxes.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, signUpWithKey, startServer } from "../support/processes.ts";

const entry = join(import.meta.dirname, "../../platform/serve.ts");

describe("one account's catastrophic patterns, while a second account is served", () => {
  let dataDir: string;
  let server: RunningServer;
  let attacker: (path: string, body?: unknown, method?: string) => Promise<Response>;
  let bystander: () => Promise<Response>;
  let sandbox: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "cairn-tenant-patterns-"));
    server = await startServer(process.execPath, [entry], { SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: "warn" });
    const [first, second] = await Promise.all([signUpWithKey(server.baseUrl), signUpWithKey(server.baseUrl)]);
    attacker = (path, body, method = body === undefined ? "GET" : "POST") =>
      fetch(`${server.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${first.key}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    bystander = () =>
      fetch(`${server.baseUrl}/v1/account`, { headers: { authorization: `Bearer ${second.key}` } });
    sandbox = ((await (await attacker("/v1/sandboxes", {})).json()) as { id: string }).id;
    for (const [path, content] of [
      ["evil.txt", `${"a".repeat(40)}!\n`],
      ["a".repeat(80), "x\n"],
    ]) {
      const created = await attacker(`/v1/sandboxes/${sandbox}/files`, { path, content });
      expect(created.ok).toBe(true);
    }
  });
  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("grep with ^(a|a)*$ over 40 a's and '!' answers, and so does the other account", async () => {
    const [attack, other] = await Promise.all([
      attacker(`/v1/sandboxes/${sandbox}/files/grep`, { pattern: "^(a|a)*$", path: "evil.txt" }),
      bystander(),
    ]);
    expect(other.status).toBe(200);
    expect(await attack.json()).toEqual({ matches: [], error: null, truncated: false });
  });

  it("glob with *a*a*a*a*a*a*a*a*b over a name of 80 a's answers, and so does the other account", async () => {
    const [attack, other] = await Promise.all([
      attacker(`/v1/sandboxes/${sandbox}/files/glob`, { pattern: "*a*a*a*a*a*a*a*a*b" }),
      bystander(),
    ]);
    expect(other.status).toBe(200);
    expect(await attack.json()).toEqual({ matches: [] });
  });

  it("an allowlist argument pattern ^(a|a)*$ checked on exec answers, and so does the other account", async () => {
    const rules = [{ command: "ls", args_allow: ["^(a|a)*$"] }];
    expect((await attacker("/v1/account/allowed-commands", { rules }, "PUT")).status).toBe(200);
    const [attack, other] = await Promise.all([
      attacker(`/v1/sandboxes/${sandbox}/exec`, { command: `ls ${"a".repeat(40)}!` }),
      bystander(),
    ]);
    expect(other.status).toBe(200);
    expect(attack.status).toBe(403);
    expect(((await attack.json()) as { error: { code: string } }).error.code).toBe("command_not_allowed");
    // The pattern still allows what it matches.
    const allowed = await attacker(`/v1/sandboxes/${sandbox}/exec`, { command: `ls ${"a".repeat(80)}` });
    expect(((await allowed.json()) as { exit_code: number }).exit_code).toBe(0);
  });
});
