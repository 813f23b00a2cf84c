/**
 * A stream of Server-Sent Events read at the client's pace (a process's output, a sandbox's
 * activity): `pull` is called for the next events only once the client has taken the last ones,
 * so a reader that falls behind costs the server a page, however much there is to read. The
 * stream ends when `pull` says so or throws, when the client leaves, when the server closes, and
 * after `streamLifetimeMs` (the client reconnects, spending a token, so open streams cannot pile
 * up for free).
 */
import { ServiceError } from "../../core/index.ts";

/** How long one stream lasts at most. */
const streamLifetimeMs = 5 * 60_000;
/** A comment this often keeps proxies from closing a quiet stream. */
export const keepAliveMs = 15_000;

/** An event stream's headers: never cached, never buffered by a proxy (nginx's `X-Accel-Buffering`). */
export const eventStreamHeaders = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-cache",
  "X-Accel-Buffering": "no",
};

/** The position a stream resumes from: `Last-Event-ID`, else the query parameter `queryName`. */
export interface ResumeFrom {
  /** The number asked for, or null when neither was given. */
  position: number | null;
  /** Where it came from, for an error about it. */
  loc: string[];
}

/** Reads the position to resume from; anything but a whole number is a validation error. */
export function resumeFrom(
  header: string | undefined,
  query: string | undefined,
  queryName: string,
  expected: string,
): ResumeFrom {
  const loc = header === undefined ? ["query", queryName] : ["header", "Last-Event-ID"];
  const text = header ?? query;
  if (text === undefined) return { position: null, loc };
  if (!/^\d{1,15}$/.test(text))
    throw new ServiceError("validation_error", "Invalid request", {
      details: [{ type: "int_parsing", loc, msg: expected }],
    });
  return { position: Number(text), loc };
}

export function pulledEventStream(options: {
  request: Request;
  /** Aborted when the server closes. */
  closing?: AbortSignal;
  /** Headers beside the event stream's own (the rate limit's). */
  headers?: Record<string, string>;
  /** Sends the next events (or a keep-alive comment); false once the stream is over. */
  pull(send: (text: string) => void, signal: AbortSignal): Promise<boolean>;
}): Response {
  const closed = new AbortController();
  const signal = AbortSignal.any([
    options.request.signal,
    closed.signal,
    ...(options.closing ? [options.closing] : []),
  ]);
  const deadline = setTimeout(() => closed.abort(), streamLifetimeMs);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let more = false;
      try {
        more =
          !signal.aborted && (await options.pull((text) => controller.enqueue(encoder.encode(text)), signal));
      } catch {
        // The sandbox ended, the storage failed or the client left: the stream ends.
      }
      if (more && !signal.aborted) return;
      clearTimeout(deadline);
      try {
        controller.close();
      } catch {
        // Already cancelled by the client.
      }
    },
    cancel() {
      clearTimeout(deadline);
      closed.abort();
    },
  });
  return new Response(body, { status: 200, headers: { ...eventStreamHeaders, ...options.headers } });
}
