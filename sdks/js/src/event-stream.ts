/**
 * The output of a background command as Server-Sent Events (GET …/processes/{id}/stream,
 * docs/api.md#processes), read with fetch and parsed here (no EventSource: it cannot send a
 * bearer token).
 * Yields each event's data; resumes after a dropped connection or the server's 5-minute close
 * from the last event's id, so the caller sees every byte once, until the `exit` event.
 */
import { CairnConnectionError, toApiError } from "./errors.ts";

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

export interface StreamSettings {
  url: string;
  credential: string | null;
  fetchImpl: typeof fetch;
  sinceOffset: number;
  signal?: AbortSignal;
}

/** Parses complete events out of `buffer`; returns them and what is left. */
function takeEvents(buffer: string): { events: ProcessEvent[]; rest: string } {
  const events: ProcessEvent[] = [];
  const blocks = buffer.split(/\r?\n\r?\n/);
  const rest = blocks.pop() ?? "";
  for (const block of blocks) {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trimStart())
      .join("\n");
    if (data !== "") events.push(JSON.parse(data) as ProcessEvent);
  }
  return { events, rest };
}

export async function* streamProcessEvents(settings: StreamSettings): AsyncGenerator<ProcessEvent> {
  let since = settings.sinceOffset;
  for (let failures = 0; ; ) {
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (settings.credential) headers.authorization = `Bearer ${settings.credential}`;
    const url = new URL(settings.url);
    url.searchParams.set("since_offset", String(since));
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
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const taken = takeEvents(buffer + value);
        buffer = taken.rest;
        for (const event of taken.events) {
          failures = 0;
          since = event.next_offset;
          yield event;
          if (event.type === "exit") return;
        }
      }
    } catch (error) {
      if (settings.signal?.aborted || ++failures > 3) {
        throw new CairnConnectionError(`GET ${url.pathname} broke off`, { cause: error });
      }
    } finally {
      reader.releaseLock();
    }
    // The server closed the stream before the end (its time limit): resume where it stopped.
  }
}
