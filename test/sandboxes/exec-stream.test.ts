/**
 * Streamed exec over REST (docs/api.md#streamed-exec) in real local sandboxes: with
 * `Accept: text/event-stream` the output arrives while the command still runs (it waits for a
 * marker file that only a second exec creates, after the first event came), then one `exit` event
 * with the JSON answer's other fields; a refusal before the command starts is the REST envelope; a
 * timeout past 100 s is for streamed calls only; closing the stream kills the command and what it
 * started (a follow-up exec takes the lock the command held); without the header the answer is the
 * JSON it always was.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/eventually.ts";
import type { TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  type SandboxClient,
} from "./sandbox-client.ts";

interface StreamEvent {
  event: string | null;
  data: Record<string, unknown>;
}

/** Reads SSE events one at a time from a response body (comments skipped). */
function eventReader(response: Response) {
  const reader = (response.body as NonNullable<Response["body"]>)
    .pipeThrough(new TextDecoderStream())
    .getReader();
  let buffer = "";
  return {
    async next(): Promise<StreamEvent | null> {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split("\n").filter((line) => line !== "" && !line.startsWith(":"));
          if (lines.length === 0) continue;
          const field = (name: string) =>
            lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2) ?? null;
          return { event: field("event"), data: JSON.parse(field("data") ?? "null") };
        }
        const { value, done } = await reader.read();
        if (done) return null;
        buffer += value;
      }
    },
    cancel: () => reader.cancel(),
  };
}

describe("streamed exec over REST", () => {
  let test: TestPlatform;
  let client: SandboxClient;
  let sessionId: string;
  const streamed = (json: Record<string, unknown>, id = sessionId) =>
    test.request(`/v1/sandboxes/${id}/exec`, {
      method: "POST",
      json,
      credential: client.key,
      headers: { Accept: "text/event-stream" },
    });

  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite");
    client = await createSandboxClient(test);
    sessionId = (await client.createActive({ size: "small" })).id;
  }, 120_000);
  afterAll(() => test.close());

  it("delivers the first output while the command still runs, then the exit", {
    timeout: 60_000,
  }, async () => {
    const response = await streamed({
      command: "echo first; while [ ! -e /workspace/go ]; do sleep 0.05; done; echo second >&2; exit 3",
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = eventReader(response);
    // The command cannot end before /workspace/go exists, and only this test creates it, below.
    expect(await events.next()).toEqual({
      event: "output",
      data: { type: "output", stdout_chunk: "first\n" },
    });
    expect((await client.exec(sessionId, "touch /workspace/go")).body.exit_code).toBe(0);
    const rest: StreamEvent[] = [];
    for (let event = await events.next(); event !== null; event = await events.next()) rest.push(event);
    expect(rest.slice(0, -1)).toEqual([
      { event: "output", data: { type: "output", stdout_chunk: "", stderr_chunk: "second\n" } },
    ]);
    const exit = rest.at(-1) as StreamEvent;
    expect(exit.event).toBe("exit");
    expect(exit.data).toMatchObject({ type: "exit", exit_code: 3, timed_out: false, truncated: false });
    expect(exit.data.duration_ms).toEqual(expect.any(Number));
    expect(exit.data).not.toHaveProperty("stdout");
    expect(exit.data).not.toHaveProperty("stderr");
  });

  it("answers a refusal before the command starts with the REST envelope", async () => {
    const unknown = await streamed({ command: "true" }, "00000000-0000-4000-8000-000000000000");
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toMatch(/^application\/json/);
    expect(errorCode(await unknown.json())).toBe("not_found");
    const invalid = await streamed({ command: "" });
    expect(invalid.status).toBe(422);
    expect((await invalid.json()).error.details[0].loc).toEqual(["body", "command"]);
  });

  it("allows a timeout past 100 s only when streamed", { timeout: 60_000 }, async () => {
    const json = await client.sendJson<{ error: { details: Array<{ loc: string[] }> } }>(
      `/v1/sandboxes/${sessionId}/exec`,
      { method: "POST", json: { command: "true", timeout: 600 } },
    );
    expect([json.status, errorCode(json.body), json.body.error.details[0].loc]).toEqual([
      422,
      "validation_error",
      ["body", "timeout"],
    ]);
    const response = await streamed({ command: "echo long", timeout: 600 });
    const events = eventReader(response);
    expect(await events.next()).toMatchObject({ event: "output", data: { stdout_chunk: "long\n" } });
    expect(await events.next()).toMatchObject({ event: "exit", data: { exit_code: 0, timed_out: false } });
    const tooLong = await streamed({ command: "true", timeout: 3601 });
    expect(tooLong.status).toBe(422);
  });

  it("kills the command and what it started when the client closes the stream", {
    timeout: 60_000,
  }, async () => {
    // The shell and its sleep both hold the lock's descriptor: it is free once both are gone.
    const response = await streamed({
      command: "exec 9>/workspace/held; flock 9; echo holding; sleep 1000",
      timeout: 1200,
    });
    const events = eventReader(response);
    expect(await events.next()).toMatchObject({ data: { stdout_chunk: "holding\n" } });
    expect((await client.exec(sessionId, "flock -n /workspace/held true")).body.exit_code).toBe(1);
    await events.cancel();
    await eventually(async () => {
      const probe = await client.exec(sessionId, "flock -n /workspace/held true");
      return probe.body.exit_code === 0 ? true : undefined;
    });
  });

  it("streams live with an Idempotency-Key, and replays the ended stream", { timeout: 60_000 }, async () => {
    const key = crypto.randomUUID();
    const json = { command: "echo once; while [ ! -e /workspace/keyed ]; do sleep 0.05; done; echo done" };
    const keyed = () =>
      test.request(`/v1/sandboxes/${sessionId}/exec`, {
        method: "POST",
        json,
        credential: client.key,
        headers: { Accept: "text/event-stream", "Idempotency-Key": key },
      });
    const response = await keyed();
    const events = eventReader(response);
    // Live: the first event comes while the command waits for a marker made only after it.
    expect(await events.next()).toMatchObject({ data: { stdout_chunk: "once\n" } });
    const meanwhile = await keyed();
    expect([meanwhile.status, errorCode(await meanwhile.json())]).toEqual([
      409,
      "idempotency_key_in_progress",
    ]);
    expect((await client.exec(sessionId, "touch /workspace/keyed")).body.exit_code).toBe(0);
    const rest: StreamEvent[] = [];
    for (let event = await events.next(); event !== null; event = await events.next()) rest.push(event);
    expect(rest.at(-1)).toMatchObject({ event: "exit", data: { exit_code: 0 } });
    const replay = await eventually(async () => {
      const again = await keyed();
      return again.status === 200 ? again : undefined;
    });
    expect(replay.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const replayed = eventReader(replay);
    expect(await replayed.next()).toMatchObject({ data: { stdout_chunk: "once\n" } });
  });

  it("carries the X-RateLimit headers of the exec's bucket, as the JSON answer does", {
    timeout: 60_000,
  }, async () => {
    const plain = await test.request(`/v1/sandboxes/${sessionId}/exec`, {
      method: "POST",
      json: { command: "true" },
      credential: client.key,
    });
    const limit = plain.headers.get("x-ratelimit-limit");
    const remaining = Number(plain.headers.get("x-ratelimit-remaining"));
    expect(limit).toMatch(/^\d+$/);
    const response = await streamed({ command: "echo limited" });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-ratelimit-limit")).toBe(limit);
    // One token taken since; the bucket refills continuously, so perhaps one back.
    expect(Number(response.headers.get("x-ratelimit-remaining"))).toBeGreaterThanOrEqual(remaining - 1);
    expect(Number(response.headers.get("x-ratelimit-remaining"))).toBeLessThanOrEqual(remaining);
    const events = eventReader(response);
    expect(await events.next()).toMatchObject({ data: { stdout_chunk: "limited\n" } });
    while ((await events.next()) !== null) {}
  });

  it("keeps the JSON answer without the header", async () => {
    const answer = await client.exec(sessionId, "echo plain; echo err >&2");
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ exit_code: 0, stdout: "plain\n", stderr: "err\n", timed_out: false });
  });
});
