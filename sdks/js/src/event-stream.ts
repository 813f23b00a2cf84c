/**
 * The output of a background command as Server-Sent Events (GET …/processes/{id}/stream,
 * docs/api.md#processes), read with fetch and parsed here (no EventSource: it cannot send a
 * bearer token).
 * Yields each event's data; resumes after a dropped connection or the server's 5-minute close
 * from the last event's id, so the caller sees every byte once, until the `exit` event.
 */
import { CairnConnectionError, toApiError } from "./errors.ts";
import type { Output } from "./types.ts";

export interface ProcessOutputEvent {
  type: "output";
  stdout_chunk: string;
  stderr_chunk: string;
  next_offset: number;
  truncated: boolean;
}

export interface ProcessExitEvent {
  type: "exit";
  status: "running" | "exited" | "killed" | "timed_out";
  exit_code: number | null;
  next_offset: number;
}

export type ProcessEvent = ProcessOutputEvent | ProcessExitEvent;

/** One Server-Sent Event: its `event:` name ("" when it has none) and its data lines joined. */
export interface ServerEvent {
  event: string;
  data: string;
}

/** The events of a response body as they complete; comments and events without data are passed over. */
async function* readEvents(reader: ReadableStreamDefaultReader<string>): AsyncGenerator<ServerEvent> {
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    const blocks = (buffer + value).split(/\r?\n\r?\n/);
    buffer = blocks.pop() ?? "";
    for (const block of blocks) {
      const lines = block.split(/\r?\n/);
      const event =
        lines
          .find((line) => line.startsWith("event:"))
          ?.slice(6)
          .trim() ?? "";
      const data = lines
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      if (data !== "") yield { event, data };
    }
  }
}

export interface ResumingStreamSettings {
  url: string;
  credential: string | null;
  fetchImpl: typeof fetch;
  signal?: AbortSignal;
}

/**
 * GETs a stream of events and yields them, connecting again where it stopped after a dropped
 * connection or the server's 5-minute close: `resumeAt()` names the query parameter and value to
 * resume from at each connection (null: none). Three failures in a row without an event between
 * them end it with a CairnConnectionError; the caller returns at the stream's last event.
 */
export async function* resumingEvents(
  settings: ResumingStreamSettings,
  resumeAt: () => [string, string] | null,
): AsyncGenerator<ServerEvent> {
  for (let failures = 0; ; ) {
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (settings.credential) headers.authorization = `Bearer ${settings.credential}`;
    const url = new URL(settings.url);
    const resume = resumeAt();
    if (resume !== null) url.searchParams.set(...resume);
    let response: Response;
    try {
      response = await settings.fetchImpl(url.href, { headers, signal: settings.signal });
    } catch (error) {
      if (settings.signal?.aborted || ++failures > 3) {
        throw new CairnConnectionError(`GET ${url.pathname} failed`, { cause: error });
      }
      continue;
    }
    if (!response.ok || !response.body) {
      throw toApiError(response.status, response.headers, await response.text().catch(() => ""));
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for await (const event of readEvents(reader)) {
        failures = 0;
        yield event;
      }
    } catch (error) {
      if (settings.signal?.aborted || ++failures > 3) {
        throw new CairnConnectionError(`GET ${url.pathname} broke off`, { cause: error });
      }
    } finally {
      // Also when the caller leaves early: the connection closes, and the server's stream with it.
      await reader.cancel().catch(() => {});
    }
  }
}

export async function* streamProcessEvents(
  settings: ResumingStreamSettings & { sinceOffset: number },
): AsyncGenerator<ProcessEvent> {
  let since = settings.sinceOffset;
  for await (const { data } of resumingEvents(settings, () => ["since_offset", String(since)])) {
    const event = JSON.parse(data) as ProcessEvent;
    since = event.next_offset;
    yield event;
    if (event.type === "exit") return;
  }
}

/** A piece of a streamed exec's output (POST …/exec with Accept: text/event-stream). */
export interface ExecOutputEvent {
  type: "output";
  stdout_chunk: string;
  /** Present when the piece is stderr (then stdout_chunk is ""). */
  stderr_chunk?: string;
}

/** A streamed exec's last event: the JSON answer without the output the stream carried. */
export type ExecExitEvent = { type: "exit" } & Omit<Output<"exec">, "stdout" | "stderr">;

export type ExecEvent = ExecOutputEvent | ExecExitEvent;

export interface ExecStreamSettings {
  url: string;
  credential: string | null;
  fetchImpl: typeof fetch;
  body: unknown;
  signal?: AbortSignal;
}

/**
 * A streamed exec's events, the `exit` event last. A refusal before the command starts throws
 * the API error as the JSON call would; a failure after it (an `error` event) throws it too.
 * Aborting `signal` (or leaving the loop early) closes the stream, which kills the command.
 */
export async function* streamExecEvents(settings: ExecStreamSettings): AsyncGenerator<ExecEvent> {
  const headers: Record<string, string> = { accept: "text/event-stream", "content-type": "application/json" };
  if (settings.credential) headers.authorization = `Bearer ${settings.credential}`;
  const path = new URL(settings.url).pathname;
  let response: Response;
  try {
    response = await settings.fetchImpl(settings.url, {
      method: "POST",
      headers,
      body: JSON.stringify(settings.body),
      signal: settings.signal,
    });
  } catch (error) {
    throw new CairnConnectionError(`POST ${path} failed`, { cause: error });
  }
  if (!response.ok || !response.body) {
    throw toApiError(response.status, response.headers, await response.text().catch(() => ""));
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    const events = readEvents(reader);
    for (;;) {
      let next: IteratorResult<ServerEvent>;
      try {
        next = await events.next();
      } catch (error) {
        throw new CairnConnectionError(`POST ${path} broke off`, { cause: error });
      }
      if (next.done) break;
      const event = JSON.parse(next.value.data) as
        | ExecEvent
        | { type: "error"; status: number; error: unknown };
      if (event.type === "error")
        throw toApiError(event.status, new Headers(), JSON.stringify({ error: event.error }));
      yield event;
      if (event.type === "exit") return;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  throw new CairnConnectionError(`POST ${path} ended before the command did`);
}
