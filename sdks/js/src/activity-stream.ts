/**
 * A sandbox's activity feed live (GET /v1/sandboxes/{id}/watch, docs/api.md#activity) as
 * Server-Sent Events, read with fetch (EventSource cannot send a bearer token). Yields each new
 * entry; resumes after a dropped connection or the server's 5-minute close from the last entry's
 * seq, so each entry comes once; ends when the sandbox ends.
 */
import { CairnConnectionError, toApiError } from "./errors.ts";
import type { Output } from "./types.ts";

export type ActivityEntry = Output<"sandbox_log">["entries"][number];

export interface ActivityStreamSettings {
  url: string;
  credential: string | null;
  fetchImpl: typeof fetch;
  /** Entries after this seq (replayed from what the server keeps); absent: only new ones. */
  since?: number;
  signal?: AbortSignal;
}

export async function* streamActivityEvents(settings: ActivityStreamSettings): AsyncGenerator<ActivityEntry> {
  let since = settings.since;
  for (let failures = 0; ; ) {
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (settings.credential) headers.authorization = `Bearer ${settings.credential}`;
    const url = new URL(settings.url);
    if (since !== undefined) url.searchParams.set("since", String(since));
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
        const blocks = (buffer + value).split(/\r?\n\r?\n/);
        buffer = blocks.pop() ?? "";
        for (const block of blocks) {
          const lines = block.split(/\r?\n/);
          const event = lines
            .find((line) => line.startsWith("event:"))
            ?.slice(6)
            .trim();
          const data = lines
            .filter((line) => line.startsWith("data:"))
            .map((line) => line.slice(5).trimStart())
            .join("\n");
          if (event === "end") return;
          if (event !== "activity" || data === "") continue;
          const entry = JSON.parse(data) as ActivityEntry;
          failures = 0;
          since = entry.seq;
          yield entry;
        }
      }
    } catch (error) {
      if (settings.signal?.aborted || ++failures > 3) {
        throw new CairnConnectionError(`GET ${url.pathname} broke off`, { cause: error });
      }
    } finally {
      reader.releaseLock();
    }
  }
}
