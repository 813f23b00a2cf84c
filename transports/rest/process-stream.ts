/**
 * GET /v1/sandboxes/{id}/processes/{process_id}/stream: a background process's output as
 * Server-Sent Events (docs/api.md#processes). Not an operation of the registry (its answer is a
 * stream, not JSON), so it goes through `invoke` of `process_get` for the credential, the
 * sandbox_ops token and ownership, then reads the process's output log directly. Each event is
 * one chunk of one stream, `id` the offset after it, so a client that reconnects with
 * `Last-Event-ID` (or `?since_offset=`) resumes exactly there; the last event is `exit`. Read at
 * the client's pace (pulled-events.ts).
 */
import type { Hono } from "hono";
import { invoke, type Platform, ServiceError } from "../../core/index.ts";
import { type OperationRouteOptions, rateLimitHeaders } from "./operation-routes.ts";
import { keepAliveMs, pulledEventStream, resumeFrom } from "./pulled-events.ts";
import { requestCaller } from "./request-caller.ts";

export const processStreamPath = "/v1/sandboxes/:session_id/processes/:process_id/stream";
const maxEventBytes = 65_536;

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
      ...requestCaller(context, options),
      input: { session_id: sessionId, process_id: processId },
    });
    // After the credential: an unauthenticated request learns nothing, not even that its offset is bad.
    const resume = resumeFrom(
      context.req.header("Last-Event-ID"),
      context.req.query("since_offset"),
      "since_offset",
      "expected a whole number of bytes (an event id or next_offset)",
    );
    let since = resume.position ?? 0;
    const { backgroundProcesses } = platform;
    // The first read checks the offset (past the output is 422) before the answer starts.
    let page: Awaited<ReturnType<typeof backgroundProcesses.output>> | null = await backgroundProcesses
      .output(sessionId, processId, { since, maxBytes: maxEventBytes, waitMs: 0 })
      .catch((error: unknown) => {
        if (!(error instanceof ServiceError) || error.code !== "validation_error") throw error;
        const msg = (error.details as Array<{ msg?: string }> | undefined)?.[0]?.msg ?? error.message;
        throw new ServiceError("validation_error", "Invalid request", {
          details: [{ type: "too_big", loc: resume.loc, msg }],
        });
      });
    const decoder = new TextDecoder();
    return pulledEventStream({
      request: context.req.raw,
      closing: options.closing,
      headers: rateLimitHeaders(authorized.rateLimit),
      // A reader that falls behind is held to the process's output bound like any other (the log
      // drops the oldest bytes and the next event says `truncated`).
      async pull(send, signal) {
        page ??= await backgroundProcesses.output(sessionId, processId, {
          since,
          maxBytes: maxEventBytes,
          waitMs: keepAliveMs,
          signal,
        });
        const { chunks, state } = page;
        let truncated = page.truncated;
        since = page.nextOffset;
        page = null;
        for (const chunk of chunks) {
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
        if (chunks.length === 0 && state.status !== "running" && since >= state.outputBytes) {
          const data = { type: "exit", status: state.status, exit_code: state.exitCode, next_offset: since };
          send(`id: ${since}\nevent: exit\ndata: ${JSON.stringify(data)}\n\n`);
          return false;
        }
        if (chunks.length === 0) send(": keep-alive\n\n");
        return true;
      },
    });
  });
}
