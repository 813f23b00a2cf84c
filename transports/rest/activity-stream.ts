/**
 * GET /v1/sandboxes/{id}/watch: a sandbox's activity feed as Server-Sent Events
 * (docs/api.md#activity). Not an operation of the registry (its answer is a stream), so it goes
 * through `invoke` of `sandbox_log` for the credential and ownership, then reads the feed from
 * storage. Each event is one entry (`event: activity`, `id` its seq), so a client that reconnects
 * with `Last-Event-ID` (or `?since=`) resumes after it; without either the stream starts with
 * what happens next. Pulled, not pushed: the next batch is read only when the client has taken
 * the last one, polling storage (other replicas record too), so a slow reader costs a page. A
 * stream lasts at most `streamLifetimeMs` and ends with the sandbox or the server (`closing`).
 */
import type { Hono } from "hono";
import { invoke, type Platform, ServiceError, toActivityOut } from "../../core/index.ts";
import { bearerCredential } from "../bearer-credential.ts";
import type { OperationRouteOptions } from "./operation-routes.ts";

export const activityStreamPath = "/v1/sandboxes/:session_id/watch";
const streamLifetimeMs = 5 * 60_000;
const keepAliveMs = 15_000;
const pollMs = 250;
const batch = 100;

interface LogPage {
  session_id: string;
  entries: Array<{ seq: number; account_id: string }>;
}

function sinceSeq(header: string | undefined, query: string | undefined): number | null {
  const text = header ?? query;
  if (text === undefined) return null;
  if (!/^\d{1,15}$/.test(text)) {
    throw new ServiceError("validation_error", "Invalid request", {
      details: [
        {
          type: "int_parsing",
          loc: header === undefined ? ["query", "since"] : ["header", "Last-Event-ID"],
          msg: "expected an entry's seq",
        },
      ],
    });
  }
  return Number(text);
}

export function mountActivityStream(
  app: Hono<{ Variables: { requestId: string } }>,
  platform: Platform,
  options: OperationRouteOptions & { closing?: AbortSignal },
): void {
  const tool = platform.tools.find("sandbox_log");
  if (!tool) return;
  app.get(activityStreamPath, async (context) => {
    const authorized = await invoke(platform, tool, {
      credential: bearerCredential(context.req.header("Authorization")),
      clientIp: options.clientIp(context.req.raw, context.env),
      requestId: context.get("requestId"),
      signal: context.req.raw.signal,
      input: { session_id: context.req.param("session_id"), limit: 1, offset: 0 },
    });
    const page = authorized.output as LogPage;
    const sessionId = page.session_id;
    let since =
      sinceSeq(context.req.header("Last-Event-ID"), context.req.query("since")) ?? page.entries[0]?.seq ?? 0;
    const { storage, clock } = platform;
    const accountId = (await storage.sandboxSessions.getById(sessionId))?.accountId ?? "";
    const closed = new AbortController();
    const signal = AbortSignal.any([
      context.req.raw.signal,
      closed.signal,
      ...(options.closing ? [options.closing] : []),
    ]);
    const deadline = setTimeout(() => closed.abort(), streamLifetimeMs);
    const encoder = new TextEncoder();
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
        const waitUntil = Date.now() + keepAliveMs;
        try {
          while (!signal.aborted) {
            const entries = await storage.sandboxActivity.after(sessionId, since, batch);
            if (entries.length > 0) {
              for (const entry of entries) {
                send(
                  `id: ${entry.seq}\nevent: activity\ndata: ${JSON.stringify(toActivityOut(entry, accountId))}\n\n`,
                );
                since = entry.seq;
              }
              return;
            }
            const session = await storage.sandboxSessions.getById(sessionId);
            if (session?.status !== "active" || session.expiresAt <= clock.now()) {
              send(`event: end\ndata: ${JSON.stringify({ type: "end", reason: "sandbox_ended" })}\n\n`);
              return finish(controller);
            }
            if (Date.now() >= waitUntil) {
              send(": keep-alive\n\n");
              return;
            }
            await new Promise((resolve) => setTimeout(resolve, pollMs));
          }
          finish(controller);
        } catch {
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
      },
    });
  });
}
