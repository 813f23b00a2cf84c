/**
 * The raw byte routes of a sandbox's files (docs/api.md#raw-files): `PUT
 * /v1/sandboxes/{id}/files/raw?path=…` streams the request body into a file (at most 100 MiB,
 * counted as it arrives, past the JSON body limit) and `GET` streams a file's bytes back as
 * application/octet-stream. They are not registry operations (bytes, not JSON; no MCP tool), but
 * run through the same `invoke` as every route: credential, the sandbox_ops bucket, "owned and
 * active", path rules and the error envelope are those of the other file routes.
 */
import type { Context, Hono } from "hono";
import {
  type AnyTool,
  downloadFileRaw,
  invoke,
  maxRawUploadBytes,
  type Platform,
  rawFilesPath,
  ServiceError,
  uploadFileRaw,
  type ValidationIssue,
} from "../../core/index.ts";
import { isClientAbort } from "./client-abort.ts";
import { type OperationRouteOptions, rateLimitHeaders } from "./operation-routes.ts";
import { requestCaller } from "./request-caller.ts";

/** The paths these routes take, for telling a wrong method (405) from an unknown path (404). */
export const rawFileRoutes = [
  { method: "GET", path: rawFilesPath },
  { method: "PUT", path: rawFilesPath },
] as const;

const rawPathPattern = /^\/v1\/sandboxes\/[^/]+\/files\/raw$/;

/** The raw upload, whose body the JSON body limit does not count (it enforces its own). */
export function isRawUpload(method: string, path: string): boolean {
  return method === "PUT" && rawPathPattern.test(path);
}

const tooLarge = () =>
  new ServiceError("payload_too_large", `Request body is larger than ${maxRawUploadBytes} bytes (100 MiB)`, {
    details: { max_bytes: maxRawUploadBytes },
  });

/**
 * The request body as a stream whose failed read (the client hung up mid-upload) is the error
 * the app answers a cut-off body with, not a runtime failure.
 */
function requestBody(request: Request): ReadableStream<Uint8Array> {
  const body = request.body;
  if (body === null) return new ReadableStream({ start: (controller) => controller.close() });
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          controller.error(
            isClientAbort(error, request)
              ? new ServiceError("invalid_json", "Request body was cut off: the client closed the connection")
              : error,
          );
        }
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/** A bad field is named where the request carried it: the id in the path, `path` in the query. */
function locateIssues(error: unknown): unknown {
  if (!(error instanceof ServiceError) || error.code !== "validation_error" || !Array.isArray(error.details))
    return error;
  const details = (error.details as ValidationIssue[]).map((issue) => ({
    ...issue,
    loc: [issue.loc[0] === "session_id" ? "path" : "query", ...issue.loc],
  }));
  return new ServiceError("validation_error", error.message, { details });
}

export function mountRawFileRoutes(
  app: Hono<{ Variables: { requestId: string } }>,
  platform: Platform,
  options: OperationRouteOptions,
): void {
  const run = async (
    context: Context<{ Variables: { requestId: string } }>,
    tool: AnyTool,
    input: unknown,
  ) => {
    try {
      return await invoke(platform, tool, { ...requestCaller(context, options), input });
    } catch (error) {
      throw locateIssues(error);
    }
  };

  app.put(rawFilesPath, async (context) => {
    // A declared length over the limit is refused before a byte is read; an undeclared one
    // (chunked) is counted as it streams in.
    const declared = context.req.header("Content-Length");
    if (declared !== undefined && Number(declared) > maxRawUploadBytes) throw tooLarge();
    const input = {
      session_id: context.req.param("session_id"),
      path: context.req.query("path"),
      body: requestBody(context.req.raw),
    };
    const result = await run(context, uploadFileRaw, input);
    return context.json(result.output as object, 200, rateLimitHeaders(result.rateLimit));
  });

  app.get(rawFilesPath, async (context) => {
    const input = { session_id: context.req.param("session_id"), path: context.req.query("path") };
    const result = await run(context, downloadFileRaw, input);
    const { size, stream } = result.output as { size: number; stream: ReadableStream<Uint8Array> };
    const headers = {
      "content-type": "application/octet-stream",
      "content-length": String(size),
      ...rateLimitHeaders(result.rateLimit),
    };
    // HEAD answers the headers only: the opened file is let go rather than left to be collected.
    if (context.req.method === "HEAD") {
      await stream.cancel();
      return new Response(null, { status: 200, headers });
    }
    return new Response(stream, { status: 200, headers });
  });
}
