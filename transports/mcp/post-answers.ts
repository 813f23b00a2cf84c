/**
 * How /mcp answers a message over the SDK's transport, which runs in SSE mode so that a call's
 * notifications can go out while it runs. A single request whose `_meta` carries a
 * `progressToken` is answered with that stream (its `notifications/progress`, then its result); any
 * other POST is answered with JSON, as /mcp always has, by reading its SSE answer to the end (a
 * request without a token has nothing else on it). `notifications/cancelled` ends the cancelled
 * request's HTTP answer at once: the SDK aborts the call (which stops its command) and, as the
 * protocol says, sends it no result, so without this the client's request would stay open.
 */

import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";

type Message = { id?: string | number; method?: string; params?: Record<string, unknown> };

const messagesOf = (body: unknown): Message[] =>
  (Array.isArray(body) ? body : [body]).filter(
    (message): message is Message => typeof message === "object" && message !== null,
  );

/** A single request that asked for progress: its answer streams. */
export function streamsProgress(body: unknown): boolean {
  if (Array.isArray(body) || typeof body !== "object" || body === null) return false;
  const message = body as Message & { params?: { _meta?: { progressToken?: unknown } } };
  return message.id !== undefined && message.params?._meta?.progressToken !== undefined;
}

function cancelledIds(body: unknown): Array<string | number> {
  return messagesOf(body).flatMap((message) => {
    const id = message.params?.requestId;
    return message.method === "notifications/cancelled" && (typeof id === "string" || typeof id === "number")
      ? [id]
      : [];
  });
}

const isEventStream = (response: Response) =>
  response.headers.get("content-type")?.startsWith("text/event-stream") ?? false;

/** The JSON-RPC answers of an SSE answer, as the SDK's JSON mode sends them: one object, or an array. */
async function asJson(response: Response, body: unknown): Promise<Response> {
  const answers = new Map<unknown, unknown>();
  for (const line of (await response.text()).split("\n")) {
    if (!line.startsWith("data: ")) continue;
    const message = JSON.parse(line.slice("data: ".length)) as Message;
    if (message.id !== undefined && ("result" in message || "error" in message))
      answers.set(message.id, message);
  }
  // A cancelled request's stream ends with no answer: an empty stream says so without a result.
  if (answers.size === 0) return new Response("", { status: response.status, headers: response.headers });
  const order = messagesOf(body).map((message) => message.id);
  const sorted = [...answers].sort(([a], [b]) => order.indexOf(a as never) - order.indexOf(b as never));
  const headers = new Headers(response.headers);
  headers.set("content-type", "application/json");
  for (const name of ["cache-control", "connection", "x-accel-buffering"]) headers.delete(name);
  const json = sorted.length === 1 ? sorted[0][1] : sorted.map(([, message]) => message);
  return new Response(JSON.stringify(json), { status: response.status, headers });
}

export async function answerMessage(
  transport: WebStandardStreamableHTTPServerTransport,
  request: Request,
  body: unknown,
  authInfo: AuthInfo,
): Promise<Response> {
  const response = await transport.handleRequest(request, { parsedBody: body, authInfo });
  for (const id of cancelledIds(body)) transport.closeSSEStream(id);
  if (request.method !== "POST" || !isEventStream(response) || streamsProgress(body)) return response;
  return asJson(response, body);
}

/** The response, running `done` once its body has ended or the client has left (a stateless request's server closes then). */
export function whenSent(response: Response, done: () => void): Response {
  if (response.body === null) {
    done();
    return response;
  }
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  void response.body
    .pipeTo(writable)
    .catch(() => {})
    .finally(done);
  return new Response(readable, { status: response.status, headers: response.headers });
}
