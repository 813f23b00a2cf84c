/**
 * Background processes in real local sandboxes (docs/sandboxes.md#processes): a dev server
 * started in the background answers an exec's request while other execs run; output read in
 * pages from next_offset, and an SSE stream resumed with Last-Event-ID, lose and repeat nothing;
 * stdin reaches a process and eof ends it; stop, max_runtime_seconds and destroy end processes
 * (destroy, the reaper and a stopping server leave no process of the sandbox's host uid); the per-sandbox limit answers 429; the
 * allowlist refuses a background command as it refuses an exec; another account sees 404.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reapExpiredSandboxes } from "../../core/index.ts";
import { createFakeClock } from "../doubles/fake-clock.ts";
import { eventually } from "../support/eventually.ts";
import type { TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  errorDetails,
  type SandboxClient,
} from "./sandbox-client.ts";

const run = promisify(execFile);

interface ProcessOut {
  process_id: string;
  command: string;
  status: "running" | "exited" | "killed" | "timed_out";
  exit_code: number | null;
  output_bytes: number;
  output_start_offset: number;
}

interface OutputOut {
  stdout: string;
  stderr: string;
  offset: number;
  next_offset: number;
  truncated: boolean;
  status: ProcessOut["status"];
  exit_code: number | null;
}

/** The host processes of a uid, as `ps` lists them (command names). */
async function processesOf(uid: number): Promise<string[]> {
  try {
    const { stdout } = await run("ps", ["-u", String(uid), "-o", "comm="]);
    return stdout.split("\n").filter((line) => line.trim() !== "");
  } catch (error) {
    if ((error as { code?: number }).code === 1) return [];
    throw error;
  }
}

interface StreamEvent {
  id: string | null;
  event: string | null;
  data: Record<string, unknown>;
}

/** Reads an SSE body to its end into events (comments dropped). */
async function readEvents(response: Response): Promise<StreamEvent[]> {
  const text = await response.text();
  const events: StreamEvent[] = [];
  for (const block of text.split("\n\n")) {
    const lines = block.split("\n").filter((line) => line !== "" && !line.startsWith(":"));
    if (lines.length === 0) continue;
    const field = (name: string) =>
      lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2) ?? null;
    events.push({ id: field("id"), event: field("event"), data: JSON.parse(field("data") ?? "null") });
  }
  return events;
}

describe("background processes in local sandboxes", () => {
  let test: TestPlatform;
  let client: SandboxClient;
  let sessionId: string;
  const processes = (suffix = "") => `/v1/sandboxes/${sessionId}/processes${suffix}`;
  const start = async (command: string, extra: Record<string, unknown> = {}, id = sessionId) => {
    const started = await client.sendJson<ProcessOut>(`/v1/sandboxes/${id}/processes`, {
      method: "POST",
      json: { command, ...extra },
    });
    expect([started.status, started.body.status], JSON.stringify(started.body)).toEqual([201, "running"]);
    expect(started.body.process_id).toMatch(/^proc_[0-9a-f]{32}$/);
    return started.body.process_id;
  };
  const output = (processId: string, since: number, query = "") =>
    client.sendJson<OutputOut>(processes(`/${processId}/output?since_offset=${since}${query}`));
  const wait = (processId: string, id = sessionId) =>
    client.sendJson<ProcessOut>(`/v1/sandboxes/${id}/processes/${processId}/wait`, {
      method: "POST",
      json: { timeout_seconds: 60 },
    });
  /** Reads every page from 0 with `max_bytes`, following next_offset until the process has ended. */
  const readAll = async (processId: string, maxBytes: number) => {
    let since = 0;
    let stdout = "";
    let stderr = "";
    let pages = 0;
    for (;;) {
      const page = await output(processId, since, `&max_bytes=${maxBytes}&wait_seconds=10`);
      expect(page.status).toBe(200);
      expect([page.body.offset, page.body.truncated]).toEqual([since, false]);
      stdout += page.body.stdout;
      stderr += page.body.stderr;
      pages++;
      if (page.body.next_offset === since && page.body.status !== "running") break;
      since = page.body.next_offset;
    }
    return { stdout, stderr, pages, end: since };
  };

  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite", {
      environment: { SVC_MAX_PROCESSES_PER_SANDBOX: "4", SVC_PROCESS_OUTPUT_BYTES: "65536" },
    });
    client = await createSandboxClient(test);
    sessionId = (await client.createActive({ size: "medium" })).id;
  }, 120_000);
  afterAll(() => test.close());

  it("runs a dev server that an exec reaches while other execs run", { timeout: 120_000 }, async () => {
    const written = await client.exec(sessionId, "printf 'hello from the workspace' > hello.txt");
    expect(written.body.exit_code).toBe(0);
    const serverId = await start("python3 -u -m http.server 8765 --bind 127.0.0.1", {
      description: "dev server",
    });
    // Ready once it says so (its first line); waited for by long-polling the output.
    let seen = "";
    let since = 0;
    while (!seen.includes("Serving HTTP")) {
      const page = await output(serverId, since, "&wait_seconds=10");
      expect(page.body.status).toBe("running");
      seen += page.body.stdout + page.body.stderr;
      since = page.body.next_offset;
    }
    const fetch =
      "python3 -c \"import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:8765/hello.txt').read().decode())\"";
    const [fetched, other] = await Promise.all([
      client.exec(sessionId, fetch),
      client.exec(sessionId, "echo other; ls /workspace"),
    ]);
    expect([fetched.body.exit_code, fetched.body.stdout]).toEqual([0, "hello from the workspace\n"]);
    expect([other.body.exit_code, other.body.stdout]).toEqual([0, "other\nhello.txt\n"]);
    // The server logged the request on its stderr.
    while (!seen.includes("GET /hello.txt")) {
      const page = await output(serverId, since, "&wait_seconds=10");
      seen += page.body.stderr;
      since = page.body.next_offset;
    }
    const listed = await client.sendJson<{ processes: ProcessOut[] }>(processes());
    expect(listed.body.processes.find((entry) => entry.process_id === serverId)).toMatchObject({
      command: "python3 -u -m http.server 8765 --bind 127.0.0.1",
      description: "dev server",
      status: "running",
      exit_code: null,
    });
    const stopped = await client.sendJson<ProcessOut>(processes(`/${serverId}/stop`), { method: "POST" });
    expect([stopped.status, stopped.body.status]).toEqual([200, "killed"]);
    const gone = await client.exec(sessionId, fetch);
    expect(gone.body.exit_code).not.toBe(0);
  });

  it("pages of output from next_offset lose and repeat no byte of either stream", {
    timeout: 120_000,
  }, async () => {
    const script =
      "import sys\nfor i in range(3000):\n sys.stdout.write(f'o{i} é\\n'); sys.stdout.flush()\n sys.stderr.write(f'e{i} ✓\\n'); sys.stderr.flush()\n";
    await client.exec(sessionId, `cat > emit.py <<'EOF'\n${script}EOF`);
    const processId = await start("python3 emit.py");
    const read = await readAll(processId, 777);
    const expectedOut = Array.from({ length: 3000 }, (_, i) => `o${i} é\n`).join("");
    const expectedErr = Array.from({ length: 3000 }, (_, i) => `e${i} ✓\n`).join("");
    expect(read.stdout).toBe(expectedOut);
    expect(read.stderr).toBe(expectedErr);
    expect(read.pages).toBeGreaterThan(10);
    // Offsets count the bytes of both streams.
    const bytes = Buffer.byteLength(expectedOut) + Buffer.byteLength(expectedErr);
    expect(read.end).toBe(bytes);
    const state = await wait(processId);
    expect(state.body).toMatchObject({ status: "exited", exit_code: 0, output_bytes: bytes });
    // Past the output is refused rather than skipped.
    const past = await output(processId, bytes + 1);
    expect([past.status, errorCode(past.body)]).toEqual([422, "validation_error"]);
  });

  it("keeps the newest output only, and says so", { timeout: 60_000 }, async () => {
    const processId = await start("seq 1 40000");
    expect((await wait(processId)).body.status).toBe("exited");
    const whole = Array.from({ length: 40000 }, (_, i) => `${i + 1}\n`).join("");
    const page = await output(processId, 0, "&max_bytes=1048576");
    expect(page.body.truncated).toBe(true);
    expect(page.body.next_offset).toBe(Buffer.byteLength(whole));
    expect(page.body.offset).toBe(Buffer.byteLength(whole) - 65536);
    expect(page.body.stdout).toBe(whole.slice(whole.length - 65536));
  });

  it("streams output as events that resume after Last-Event-ID without loss or repeat", {
    timeout: 120_000,
  }, async () => {
    const processId = await start("for i in $(seq 1 300); do echo line $i; echo warn $i >&2; done");
    const streamUrl = processes(`/${processId}/stream`);
    const whole = await readEvents(await client.send(streamUrl));
    const last = whole.at(-1);
    expect(last?.event).toBe("exit");
    expect(last?.data).toMatchObject({ type: "exit", status: "exited", exit_code: 0 });
    const outputs = whole.filter((event) => event.event === "output");
    const text = (events: StreamEvent[], field: "stdout_chunk" | "stderr_chunk") =>
      events.map((event) => String(event.data[field] ?? "")).join("");
    expect(text(outputs, "stdout_chunk")).toBe(
      Array.from({ length: 300 }, (_, i) => `line ${i + 1}\n`).join(""),
    );
    expect(text(outputs, "stderr_chunk")).toBe(
      Array.from({ length: 300 }, (_, i) => `warn ${i + 1}\n`).join(""),
    );
    for (const event of outputs) expect(event.id).toBe(String(event.data.next_offset));
    expect(outputs.length).toBeGreaterThan(2);
    const middle = Math.floor(outputs.length / 2);
    const resumed = await readEvents(
      await test.request(streamUrl, {
        credential: client.key,
        headers: { "Last-Event-ID": String(outputs[middle].id) },
      }),
    );
    const rest = resumed.filter((event) => event.event === "output");
    const joined = [...outputs.slice(0, middle + 1), ...rest];
    expect(text(joined, "stdout_chunk")).toBe(text(outputs, "stdout_chunk"));
    expect(text(joined, "stderr_chunk")).toBe(text(outputs, "stderr_chunk"));
    expect(resumed.at(-1)?.event).toBe("exit");
    const past = await client.sendJson(`${streamUrl}?since_offset=${Number(last?.data.next_offset) + 1}`);
    expect([past.status, errorCode(past.body), errorDetails(past.body)]).toEqual([
      422,
      "validation_error",
      [expect.objectContaining({ loc: ["query", "since_offset"] })],
    ]);
    const anonymous = await test.request(streamUrl, { headers: { "Last-Event-ID": "x" } });
    expect(anonymous.status).toBe(401);
    const unreadable = await test.request(streamUrl, {
      credential: client.key,
      headers: { "Last-Event-ID": "x" },
    });
    const refusal = await unreadable.json();
    expect([unreadable.status, errorCode(refusal), errorDetails(refusal)]).toEqual([
      422,
      "validation_error",
      [expect.objectContaining({ type: "int_parsing", loc: ["header", "Last-Event-ID"] })],
    ]);
  });

  it("holds a stream's reader that falls behind to the output bound: the server keeps no more for it, and says truncated", {
    timeout: 120_000,
  }, async () => {
    const processId = await start("head -c 2097152 /dev/zero | tr '\\0' a");
    const response = await client.send(processes(`/${processId}/stream`));
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    // The reader stops while the process prints its 2 MiB and ends (64 KiB bound here).
    expect((await wait(processId)).body.status).toBe("exited");
    let text = new TextDecoder().decode(first.value);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      text += new TextDecoder().decode(chunk.value);
    const events = await readEvents(new Response(text));
    const outputs = events.filter((event) => event.event === "output");
    const received = outputs.map((event) => String(event.data.stdout_chunk)).join("").length;
    expect(outputs.some((event) => event.data.truncated === true)).toBe(true);
    expect(received).toBeLessThan(2097152 / 4);
    expect(events.at(-1)?.data).toMatchObject({ type: "exit", status: "exited", next_offset: 2097152 });
  });

  it("passes stdin to a process, and eof ends it", { timeout: 60_000 }, async () => {
    const processId = await start(
      "python3 -c 'import sys; print(input(), flush=True); print(sys.stdin.read().upper())'",
    );
    const input = (json: Record<string, unknown>) =>
      client.sendJson<{ bytes_written: number }>(processes(`/${processId}/input`), { method: "POST", json });
    expect((await input({ data: "hello\n" })).body.bytes_written).toBe(6);
    let seen = "";
    let since = 0;
    while (!seen.includes("hello\n")) {
      const page = await output(processId, since, "&wait_seconds=10");
      seen += page.body.stdout;
      since = page.body.next_offset;
    }
    expect((await input({ data: "rest of it", eof: true })).status).toBe(200);
    expect((await wait(processId)).body).toMatchObject({ status: "exited", exit_code: 0 });
    expect((await output(processId, 0)).body.stdout).toBe("hello\nREST OF IT\n");
    const after = await input({ data: "more" });
    expect([after.status, errorCode(after.body)]).toEqual([409, "process_not_running"]);
  });

  it("stops a process that ignores SIGTERM, and ends one at max_runtime_seconds", {
    timeout: 60_000,
  }, async () => {
    const stubborn = await start("trap '' TERM; echo ready; while true; do sleep 1; done");
    await output(stubborn, 0, "&wait_seconds=10");
    const stopped = await client.sendJson<ProcessOut>(processes(`/${stubborn}/stop`), { method: "POST" });
    expect(stopped.body.status).toBe("killed");
    const timed = await start("sleep 1000", { max_runtime_seconds: 1 });
    expect((await wait(timed)).body.status).toBe("timed_out");
  });

  it("refuses a process past the sandbox's limit with 429, and takes one once another ended", {
    timeout: 60_000,
  }, async () => {
    const other = await createSandboxClient(test);
    const id = (await other.createActive()).id;
    const startIn = (command: string) =>
      other.sendJson<ProcessOut>(`/v1/sandboxes/${id}/processes`, { method: "POST", json: { command } });
    const started = [];
    for (let index = 0; index < 4; index++) started.push((await startIn("sleep 1000")).body.process_id);
    const refused = await startIn("sleep 1000");
    expect([refused.status, errorCode(refused.body)]).toEqual([429, "background_process_limit_reached"]);
    expect(errorDetails(refused.body)).toMatchObject({ limit: 4 });
    await other.sendJson(`/v1/sandboxes/${id}/processes/${started[0]}/stop`, { method: "POST" });
    expect((await startIn("true")).status).toBe(201);
    // Another account's sandbox and process ids are not found.
    const foreign = await client.sendJson(`/v1/sandboxes/${id}/processes/${started[1]}`);
    expect([foreign.status, errorCode(foreign.body)]).toEqual([404, "not_found"]);
    const crossed = await other.sendJson(`/v1/sandboxes/${sessionId}/processes`);
    expect([crossed.status, errorCode(crossed.body)]).toEqual([404, "not_found"]);
    const mixed = await client.sendJson(processes(`/${started[1]}`));
    expect([mixed.status, errorCode(mixed.body)]).toEqual([404, "not_found"]);
    const streamed = await client.send(`/v1/sandboxes/${id}/processes/${started[1]}/stream`);
    expect(streamed.status).toBe(404);
    expect((await other.destroy(id)).status).toBe(204);
  });

  it("refuses a background command the allowlist does not permit, with 403", {
    timeout: 60_000,
  }, async () => {
    const limited = await createSandboxClient(test);
    const put = await limited.sendJson("/v1/account/allowed-commands", {
      method: "PUT",
      json: { rules: ["echo"] },
    });
    expect(put.status).toBe(200);
    const id = (await limited.createActive()).id;
    const refused = await limited.sendJson(`/v1/sandboxes/${id}/processes`, {
      method: "POST",
      json: { command: "python3 -m http.server" },
    });
    expect([refused.status, errorCode(refused.body)]).toEqual([403, "command_not_allowed"]);
    const allowed = await limited.sendJson(`/v1/sandboxes/${id}/processes`, {
      method: "POST",
      json: { command: "echo allowed" },
    });
    expect(allowed.status).toBe(201);
    expect((await limited.destroy(id)).status).toBe(204);
  });

  it("ends every process of a sandbox at destroy: no process of its uid is left", {
    timeout: 60_000,
  }, async () => {
    await start("sleep 1000");
    await start("sh -c 'sleep 2000 & wait'");
    const { uid } = JSON.parse(
      await readFile(join(test.dataDir, "sandboxes", sessionId, "sandbox.json"), "utf8"),
    ) as { uid: number };
    // Running once its helpers have set it up: waited for, not assumed.
    await eventually(async () => ((await processesOf(uid)).includes("sleep") ? true : undefined));
    expect((await client.destroy(sessionId)).status).toBe(204);
    expect(await processesOf(uid)).toEqual([]);
    const after = await client.sendJson(processes());
    expect([after.status, errorCode(after.body)]).toEqual([404, "not_found"]);
  });
});

describe("the end of a sandbox or of the server", () => {
  const startIn = async (client: SandboxClient, id: string, command: string) => {
    const started = await client.sendJson<ProcessOut>(`/v1/sandboxes/${id}/processes`, {
      method: "POST",
      json: { command },
    });
    expect(started.status).toBe(201);
  };
  const uidOf = async (test: TestPlatform, id: string) =>
    (
      JSON.parse(await readFile(join(test.dataDir, "sandboxes", id, "sandbox.json"), "utf8")) as {
        uid: number;
      }
    ).uid;

  it("a stopping Cairn server leaves no background process behind", { timeout: 120_000 }, async () => {
    const test = await createSandboxPlatform("sqlite");
    let closed = false;
    try {
      const client = await createSandboxClient(test);
      const { id } = await client.createActive();
      await startIn(client, id, "sleep 1000");
      const uid = await uidOf(test, id);
      // Running once its helpers have set it up: waited for, not assumed.
      await eventually(async () => ((await processesOf(uid)).includes("sleep") ? true : undefined));
      await test.close();
      closed = true;
      expect(await processesOf(uid)).toEqual([]);
    } finally {
      if (!closed) await test.close();
    }
  });

  it("the reaper ends an expired sandbox's background processes", { timeout: 120_000 }, async () => {
    const clock = createFakeClock(new Date());
    const test = await createSandboxPlatform("sqlite", { clock });
    try {
      const client = await createSandboxClient(test);
      const { id } = await client.createActive({ lifetime_minutes: 5 });
      await startIn(client, id, "sleep 1000");
      const uid = await uidOf(test, id);
      // Running once its helpers have set it up: waited for, not assumed.
      await eventually(async () => ((await processesOf(uid)).includes("sleep") ? true : undefined));
      clock.advance(6 * 60_000);
      expect(await reapExpiredSandboxes(test.platform)).toBe(1);
      expect(await processesOf(uid)).toEqual([]);
    } finally {
      await test.close();
    }
  });
});
