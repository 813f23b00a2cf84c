/**
 * Output fit for a model's context (issue 41), over REST on real bubblewrap sandboxes: without a
 * budget exec and view answer as before (1 MiB of stdout, a whole file); with max_output_bytes
 * they keep the head, the tail or both on character boundaries, with a marker and exact counts;
 * process_output with keep "tail" or "both" names the offsets it cut, and reading them back
 * gives every byte, none lost.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  type ExecOut,
  type SandboxClient,
} from "./sandbox-client.ts";

interface BudgetedExecOut extends ExecOut {
  stdout_omitted_bytes: number;
  stderr_omitted_bytes: number;
}

interface ViewOut {
  content: string;
  lines: number;
  truncated: boolean;
  omitted_bytes: number;
  omitted_lines: [number, number] | null;
}

interface OutputOut {
  stdout: string;
  stderr: string;
  offset: number;
  next_offset: number;
  omitted_bytes: number;
  omitted_range: [number, number] | null;
  status: string;
}

const bytes = (text: string) => new TextEncoder().encode(text).length;

let test: TestPlatform;
let client: SandboxClient;
let sessionId: string;

beforeAll(async () => {
  test = await createSandboxPlatform("sqlite");
  client = await createSandboxClient(test);
  sessionId = (await client.createActive()).id;
}, 120_000);
afterAll(() => test.close());

const exec = (json: Record<string, unknown>) =>
  client.sendJson<BudgetedExecOut>(`/v1/sandboxes/${sessionId}/exec`, { method: "POST", json });

describe("exec", () => {
  it("answers as before without a budget: stdout capped at 1 MiB, no marker", {
    timeout: 60_000,
  }, async () => {
    const { status, body } = await exec({ command: "head -c 1500000 /dev/zero | tr '\\0' x" });
    expect(status).toBe(200);
    expect(body.stdout).toBe("x".repeat(1024 * 1024));
    expect([body.truncated, body.stdout_omitted_bytes, body.stderr_omitted_bytes]).toEqual([true, 0, 0]);
  });

  it("keeps both ends of each stream by default, with a marker and exact counts", async () => {
    const { body } = await exec({
      command: "seq 1 2000; seq 1 1000 >&2",
      max_output_bytes: 100,
    });
    const stdoutBytes = bytes(Array.from({ length: 2000 }, (_, index) => `${index + 1}\n`).join(""));
    expect(body.stdout_omitted_bytes).toBe(stdoutBytes - 100);
    expect(body.stdout.startsWith("1\n2\n3\n")).toBe(true);
    expect(body.stdout.endsWith("1999\n2000\n")).toBe(true);
    expect(body.stdout).toContain(
      `\n… [cut ${(stdoutBytes - 100).toLocaleString("en-US")} bytes of stdout (bytes 50–`,
    );
    expect(body.stderr.endsWith("999\n1000\n")).toBe(true);
    expect(body.stderr_omitted_bytes).toBeGreaterThan(0);
    expect(body.truncated).toBe(true);
  });

  it("keeps the head or the tail, never cutting a character", async () => {
    // 1000 three-byte characters, no newline.
    const command = "python3 -c \"import sys; sys.stdout.write('€' * 1000)\"";
    const head = await exec({ command, max_output_bytes: 100, keep: "head" });
    expect(head.body.stdout).toBe(
      `${"€".repeat(33)}\n… [cut 2,901 bytes of stdout (bytes 99–3,000); run again with a larger max_output_bytes or another keep, or send the output to a file and view it with a view_range] …\n`,
    );
    expect(head.body.stdout_omitted_bytes).toBe(2901);
    const tail = await exec({ command, max_output_bytes: 100, keep: "tail" });
    expect(tail.body.stdout.endsWith(`] …\n${"€".repeat(33)}`)).toBe(true);
    expect(tail.body.stdout).not.toContain("\uFFFD");
  });

  it("keeps the true end of an output past the runtime's 1 MiB cap with keep tail, counting every byte", {
    timeout: 60_000,
  }, async () => {
    // Regression: the runtime kept only the first MiB, so "tail" answered the end of that MiB.
    const { body } = await exec({
      command: "seq 1 2000000; seq 1 300000 >&2",
      max_output_bytes: 100,
      keep: "tail",
    });
    const total = (count: number) =>
      bytes(Array.from({ length: count }, (_, index) => `${index + 1}\n`).join(""));
    expect(body.exit_code).toBe(0);
    expect(body.stdout.endsWith("\n1999999\n2000000\n")).toBe(true);
    expect(body.stdout_omitted_bytes).toBe(total(2_000_000) - 100);
    expect(body.stdout).toContain(
      `[cut ${(total(2_000_000) - 100).toLocaleString("en-US")} bytes of stdout (bytes 0–`,
    );
    expect(body.stderr.endsWith("\n299999\n300000\n")).toBe(true);
    expect(body.stderr_omitted_bytes).toBe(total(300_000) - 100);
    const both = await exec({ command: "seq 1 2000000", max_output_bytes: 20 });
    expect(both.body.stdout.startsWith("1\n2\n3\n4\n5\n")).toBe(true);
    expect(both.body.stdout.endsWith("\n2000000\n")).toBe(true);
    expect(both.body.stdout_omitted_bytes).toBe(total(2_000_000) - 20);
  });

  it("leaves output within the budget untouched", async () => {
    const { body } = await exec({ command: "echo fine", max_output_bytes: 100 });
    expect([body.stdout, body.truncated, body.stdout_omitted_bytes]).toEqual(["fine\n", false, 0]);
  });
});

describe("view", () => {
  const view = (json: Record<string, unknown>) =>
    client.sendJson<ViewOut>(`/v1/sandboxes/${sessionId}/files/view`, { method: "POST", json });

  beforeAll(async () => {
    expect((await exec({ command: "seq 1 10000 > numbers.txt" })).body.exit_code).toBe(0);
  });

  it("answers a whole file as before without a budget", async () => {
    const { body } = await view({ path: "numbers.txt" });
    expect(body.content.split("\n")).toHaveLength(10001);
    expect([body.truncated, body.omitted_bytes, body.omitted_lines]).toEqual([false, 0, null]);
  });

  it("keeps the head by default and names the lines to ask for with view_range", async () => {
    const { body } = await view({ path: "numbers.txt", max_output_bytes: 20 });
    // "1\n" … "9\n" are 18 bytes, then "10".
    expect(
      body.content.startsWith("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n… [cut 48,874 bytes, in lines 10–10000;"),
    ).toBe(true);
    expect([body.truncated, body.omitted_bytes, body.omitted_lines]).toEqual([true, 48874, [10, 10000]]);
    expect(body.lines).toBe(10000);
    const rest = await view({ path: "numbers.txt", view_range: [9990, -1], max_output_bytes: 1000 });
    expect(rest.body.content).toBe(`${Array.from({ length: 11 }, (_, index) => 9990 + index).join("\n")}\n`);
    const tail = await view({
      path: "numbers.txt",
      view_range: [100, 200],
      max_output_bytes: 10,
      keep: "tail",
    });
    expect(tail.body.content.endsWith("\n199\n200\n")).toBe(true);
    expect(tail.body.omitted_lines).toEqual([100, 198]);
  });
});

describe("process_output", () => {
  it("cuts the newest output with keep both and the cut range reads back, no byte lost", {
    timeout: 60_000,
  }, async () => {
    const started = await client.sendJson<{ process_id: string }>(`/v1/sandboxes/${sessionId}/processes`, {
      method: "POST",
      json: { command: "seq 1 5000; echo done >&2" },
    });
    const processId = started.body.process_id;
    const output = (query: string) =>
      client.sendJson<OutputOut>(`/v1/sandboxes/${sessionId}/processes/${processId}/output?${query}`);
    await client.sendJson(`/v1/sandboxes/${sessionId}/processes/${processId}/wait`, {
      method: "POST",
      json: { timeout_seconds: 30 },
    });
    const everything = (await output("since_offset=0&max_bytes=1048576")).body;
    expect([everything.omitted_bytes, everything.omitted_range]).toEqual([0, null]);

    const cut = (await output("since_offset=100&max_bytes=200&keep=both")).body;
    const total = everything.next_offset;
    expect(cut.next_offset).toBe(total);
    expect(cut.omitted_range).toEqual([200, total - 100]);
    expect(cut.omitted_bytes).toBe(total - 300);
    expect(cut.stdout).toContain(`read them with since_offset 200 and keep "head"`);
    expect(cut.stderr).toBe("done\n");

    const [from, to] = cut.omitted_range as [number, number];
    const middle = (await output(`since_offset=${from}&max_bytes=${to - from}`)).body;
    expect(middle.next_offset).toBe(to);
    const joined = everything.stdout.slice(0, 100) + cut.stdout.split("\n… [")[0] + middle.stdout;
    expect(joined + cut.stdout.split("] …\n")[1]).toBe(everything.stdout);
  });

  it("pages from since_offset as before with keep head (REST's default)", async () => {
    const started = await client.sendJson<{ process_id: string }>(`/v1/sandboxes/${sessionId}/processes`, {
      method: "POST",
      json: { command: "seq 1 100" },
    });
    const processId = started.body.process_id;
    await client.sendJson(`/v1/sandboxes/${sessionId}/processes/${processId}/wait`, {
      method: "POST",
      json: { timeout_seconds: 30 },
    });
    const page = await client.sendJson<OutputOut>(
      `/v1/sandboxes/${sessionId}/processes/${processId}/output?since_offset=0&max_bytes=10`,
    );
    expect([page.body.stdout, page.body.next_offset, page.body.omitted_range]).toEqual([
      "1\n2\n3\n4\n5\n",
      10,
      null,
    ]);
  });
});
