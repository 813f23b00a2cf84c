/**
 * A streamed call of an operation that `streamsOutput` (exec): `POST …/exec` with
 * `Accept: text/event-stream` answers Server-Sent Events (docs/api.md#streamed-exec). Everything
 * before the command starts (credential, validation, rate limit, session, allowlist) is checked as
 * for the JSON answer, and a refusal there is the REST error envelope with its status. Once the
 * operation reports `started` the answer is a stream: an `output` event per piece of output
 * (`stdout_chunk`, and `stderr_chunk` when there is stderr), then one `exit` event holding the JSON
 * answer's other fields (exit_code, timed_out, truncated, duration_ms, …), or one `error` event
 * with the error envelope and its HTTP `status` when the operation failed after starting. A client that closes the
 * stream aborts the call, which kills the command.
 */
import type { Context } from "hono";
import {
  type AnyTool,
  type InvokeResult,
  invoke,
  type Platform,
  type RateLimitState,
  ServiceError,
  type ToolProgress,
  toServiceError,
} from "../../core/index.ts";
import { httpStatus } from "../http-status.ts";
import { eventStreamHeaders, keepAliveMs } from "./pulled-events.ts";
import { requestCaller } from "./request-caller.ts";

/** Whether the request asks for the streamed answer. */
export function acceptsEventStream(accept: string | undefined): boolean {
  return accept?.toLowerCase().includes("text/event-stream") ?? false;
}

/** The final event's data: the answer without the output the stream already carried. */
function exitEvent(output: unknown): Record<string, unknown> {
  const { stdout: _stdout, stderr: _stderr, ...rest } = output as Record<string, unknown>;
  return { type: "exit", ...rest };
}

export async function answerStreamed(
  context: Context<{ Variables: { requestId: string } }>,
  platform: Platform,
  tool: AnyTool,
  input: unknown,
  options: {
    clientIp(request: Request, environment: unknown): string;
    /** Names a bad field where the request carried it (operation-routes.ts). */
    locate(error: ServiceError): ServiceError;
    /** The X-RateLimit-* headers every REST answer carries (operation-routes.ts). */
    rateLimitHeaders(rateLimit: RateLimitState | null): Record<string, string>;
  },
): Promise<Response> {
  const encoder = new TextEncoder();
  const requestId = context.get("requestId");
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  const waiting: string[] = [];
  const send = (event: string, data: Record<string, unknown>) => {
    const text = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    if (controller === null) return void waiting.push(text);
    try {
      controller.enqueue(encoder.encode(text));
    } catch {
      // The client has gone; the call is being aborted.
    }
  };
  let markStarted = () => {};
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  const reportProgress = (progress: ToolProgress) => {
    if (progress.kind === "started") return markStarted();
    send(
      "output",
      progress.stream === "stdout"
        ? { type: "output", stdout_chunk: progress.text }
        : { type: "output", stdout_chunk: "", stderr_chunk: progress.text },
    );
  };
  const left = new AbortController();
  let rateLimit: RateLimitState | null = null;
  const running: Promise<InvokeResult> = invoke(platform, tool, {
    ...requestCaller(context, options),
    signal: AbortSignal.any([context.req.raw.signal, left.signal]),
    input,
    reportProgress,
    // The token is taken before the command starts, so the stream's headers carry the bucket's state.
    onRateLimit: (state) => {
      rateLimit = state;
    },
  });
  // A refusal before the command started is the REST error, as the JSON answer gives it.
  const first = await Promise.race([started.then(() => null), running]).catch((error: unknown) => {
    throw error instanceof ServiceError ? options.locate(error) : error;
  });
  if (first !== null) send("exit", exitEvent(first.output));

  const body = new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController;
      for (const text of waiting.splice(0)) streamController.enqueue(encoder.encode(text));
      const keepAlive = setInterval(() => {
        try {
          streamController.enqueue(encoder.encode(": keep-alive\n\n"));
        } catch {
          clearInterval(keepAlive);
        }
      }, keepAliveMs);
      const end = () => {
        clearInterval(keepAlive);
        try {
          streamController.close();
        } catch {
          // Already cancelled by the client.
        }
      };
      if (first !== null) return end();
      running
        .then(
          (result) => send("exit", exitEvent(result.output)),
          (thrown: unknown) => {
            const error = toServiceError(thrown);
            if (left.signal.aborted || context.req.raw.signal.aborted) return;
            if (httpStatus(error.code) >= 500)
              platform.logger.error(
                { requestId, operation: tool.name, err: error.cause ?? thrown, code: error.code },
                "streamed call failed",
              );
            send("error", {
              type: "error",
              status: httpStatus(error.code),
              error: options.locate(error).toBody(),
            });
          },
        )
        .finally(end);
    },
    cancel() {
      left.abort(new Error("the client closed the stream"));
    },
  });
  return new Response(body, {
    status: 200,
    headers: { ...eventStreamHeaders, ...options.rateLimitHeaders(rateLimit) },
  });
}
