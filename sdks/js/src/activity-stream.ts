/**
 * A sandbox's activity feed live (GET /v1/sandboxes/{id}/watch, docs/api.md#activity) as
 * Server-Sent Events, read with fetch (EventSource cannot send a bearer token). Yields each new
 * entry; resumes after a dropped connection or the server's 5-minute close from the last entry's
 * seq, so each entry comes once; ends when the sandbox ends.
 */
import { type ResumingStreamSettings, resumingEvents } from "./event-stream.ts";
import type { Output } from "./types.ts";

export type ActivityEntry = Output<"sandbox_log">["entries"][number];

export async function* streamActivityEvents(
  settings: ResumingStreamSettings & {
    /** Entries after this seq (replayed from what the server keeps); absent: only new ones. */
    since?: number;
  },
): AsyncGenerator<ActivityEntry> {
  let since = settings.since;
  for await (const { event, data } of resumingEvents(settings, () =>
    since === undefined ? null : ["since", String(since)],
  )) {
    if (event === "end") return;
    if (event !== "activity") continue;
    const entry = JSON.parse(data) as ActivityEntry;
    since = entry.seq;
    yield entry;
  }
}
