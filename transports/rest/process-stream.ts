/**
 * GET /v1/sandboxes/{id}/processes/{process_id}/stream: a background process's output as
 * Server-Sent Events (docs/api.md#processes). Not an operation of the registry (its answer is a
 * stream, not JSON), so it goes through `invoke` of `process_get` for the credential, the
 * sandbox_ops token and ownership, then reads the process's output log directly. Each event is
 * one chunk of one stream, `id` the offset after it, so a client that reconnects with
 * `Last-Event-ID` (or `?since_offset=`) resumes exactly there; the last event is `exit`. A stream
 * lasts at most `streamLifetimeMs` (the client reconnects, spending a token), so open streams
 * cannot pile up in the server for free, and ends when the server stops (`closing`).
 */
import type { Hono } from "hono";
import { invoke, type Platform, ServiceError } from "../../core/index.ts";
import { bearerCredential } from "../bearer-credential.ts";
import { type OperationRouteOptions, rateLimitHeaders } from "./operation-routes.ts";

export const processStreamPath = "/v1/sandboxes/:session_id/processes/:process_id/stream";
const streamLifetimeMs = 5 * 60_000;
/** How long one wait for output lasts before a keep-alive comment. */
const keepAliveMs = 15_000;
const maxEventBytes = 65_536;

function sinceOffset(header: string | undefined, query: string | undefined): number {
  const text = header ?? query ?? "0";
  if (!/^\d{1,15}$/.test(text)) {
    throw new ServiceError("validation_error", "Invalid request", {
      details: [
        {
          type: "int_parsing",
          loc: [
            header === undefined ? "query" : "header",
            header === undefined ? "since_offset" : "Last-Event-ID",
          ],
          msg: "expected a whole number of bytes (an event id or next_offset)",
        },
      ],
    });
  }
  return Number(text);
}

export function mountProcessStream(
  app: Hono<{ Variables: { requestId: string } }>,
  platform: Platform,
  options: OperationRouteOptions & { closing?: AbortSignal },
): void {
  const tool = platform.tools.find("process_get");
  if (!tool) return;
  app.get(processStreamPath, async (context) => {
    const sessionId = context.req.param("session_id");
    const processId = context.req.param("process_id");
    const authorized = await invoke(platform, tool, {
      credential: bearerCredential(context.req.header("Authorization")),
      clientIp: options.clientIp(context.req.raw, context.env),
      requestId: context.get("requestId"),
      signal: context.req.raw.signal,
      input: { session_id: sessionId, process_id: processId },
    });
    // After the credential: an unauthenticated request learns nothing, not even that its offset is bad.
    let since = sinceOffset(context.req.header("Last-Event-ID"), context.req.query("since_offset"));
    const { backgroundProcesses } = platform;
    const closed = new AbortController();
    const signal = AbortSignal.any([
      context.req.raw.signal,
      closed.signal,
      ...(options.closing ? [options.closing] : []),
    ]);
    // The first read checks the offset (past the output is 422) before the answer starts.
    let page = await backgroundProcesses
      .output(sessionId, processId, { since, maxBytes: maxEventBytes, waitMs: 0 })
      .catch((error: unknown) => {
        if (!(error instanceof ServiceError) || error.code !== "validation_error") throw error;
        const field =
          context.req.header("Last-Event-ID") === undefined
            ? ["query", "since_offset"]
            : ["header", "Last-Event-ID"];
        const details = [
          {
            type: "too_big",
            loc: field,
            msg: (error.details as Array<{ msg?: string }> | undefined)?.[0]?.msg ?? error.message,
          },
        ];
        throw new ServiceError("validation_error", "Invalid request", { details });
      });
    const encoder = new TextEncoder();
    const decoder = new TextDecoder();
    // Pulled, not pushed: the next page is read only when the client has taken the last one, so
    // a reader that falls behind is held to the process's output bound like any other (the log
    // drops the oldest bytes and the next event says `truncated`), and the server keeps at most a
    // page of events for it, however long the process prints.
    let first = true;
    const deadline = setTimeout(() => closed.abort(), streamLifetimeMs);
    const finish = (controller: ReadableStreamDefaultController<Uint8Array>) => {
      clearTimeout(deadline);
      try {
        controller.close();
      } catch {
        // Already cancelled by the client.
      }
    };
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const send = (text: string) => controller.enqueue(encoder.encode(text));
        try {
          if (!first)
            page = await backgroundProcesses.output(sessionId, processId, {
              since,
              maxBytes: maxEventBytes,
              waitMs: keepAliveMs,
              signal,
            });
          first = false;
          let truncated = page.truncated;
          for (const chunk of page.chunks) {
            const next = chunk.offset + chunk.bytes.length;
            const text = decoder.decode(chunk.bytes);
            const data = {
              type: "output",
              stdout_chunk: chunk.stream === "stdout" ? text : "",
              stderr_chunk: chunk.stream === "stderr" ? text : "",
              next_offset: next,
              truncated,
            };
            truncated = false;
            send(`id: ${next}\nevent: output\ndata: ${JSON.stringify(data)}\n\n`);
          }
          since = page.nextOffset;
          const { state } = page;
          if (page.chunks.length === 0 && state.status !== "running" && since >= state.outputBytes) {
            const data = {
              type: "exit",
              status: state.status,
              exit_code: state.exitCode,
              next_offset: since,
            };
            send(`id: ${since}\nevent: exit\ndata: ${JSON.stringify(data)}\n\n`);
            return finish(controller);
          }
          if (signal.aborted) return finish(controller);
          if (page.chunks.length === 0) send(": keep-alive\n\n");
        } catch {
          // The sandbox ended (its processes are gone) or the client left: the stream ends.
          finish(controller);
        }
      },
      cancel() {
        clearTimeout(deadline);
        closed.abort();
      },
    });
    return new Response(body, {
      status: 200,
      headers: {
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-cache",
        "X-Accel-Buffering": "no",
        ...rateLimitHeaders(authorized.rateLimit),
      },
    });
  });
}
