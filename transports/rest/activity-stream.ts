/**
 * GET /v1/sandboxes/{id}/watch: a sandbox's activity feed as Server-Sent Events
 * (docs/api.md#activity). Not an operation of the registry (its answer is a stream), so it goes
 * through `invoke` of `sandbox_log` for the credential and ownership, then reads the feed from
 * storage. Each event is one entry (`event: activity`, `id` its seq), so a client that reconnects
 * with `Last-Event-ID` (or `?since=`) resumes after it; without either the stream starts with
 * what happens next. Read at the client's pace (pulled-events.ts) by polling storage (other
 * replicas record too); the stream ends with the sandbox.
 */
import type { Hono } from "hono";
import { invoke, type Platform, toActivityOut } from "../../core/index.ts";
import { type OperationRouteOptions, rateLimitHeaders } from "./operation-routes.ts";
import { keepAliveMs, pulledEventStream, resumeFrom } from "./pulled-events.ts";
import { requestCaller } from "./request-caller.ts";

export const activityStreamPath = "/v1/sandboxes/:session_id/watch";
const pollMs = 250;
const batch = 100;

interface LogPage {
  session_id: string;
  entries: Array<{ seq: number; account_id: string }>;
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
      ...requestCaller(context, options),
      input: { session_id: context.req.param("session_id"), limit: 1, offset: 0 },
    });
    const page = authorized.output as LogPage;
    const sessionId = page.session_id;
    let since =
      resumeFrom(
        context.req.header("Last-Event-ID"),
        context.req.query("since"),
        "since",
        "expected an entry's seq",
      ).position ??
      page.entries[0]?.seq ??
      0;
    const { storage, clock } = platform;
    const accountId = (await storage.sandboxSessions.getById(sessionId))?.accountId ?? "";
    return pulledEventStream({
      request: context.req.raw,
      closing: options.closing,
      headers: rateLimitHeaders(authorized.rateLimit),
      async pull(send, signal) {
        const waitUntil = Date.now() + keepAliveMs;
        while (!signal.aborted) {
          const entries = await storage.sandboxActivity.after(sessionId, since, batch);
          if (entries.length > 0) {
            for (const entry of entries) {
              send(
                `id: ${entry.seq}\nevent: activity\ndata: ${JSON.stringify(toActivityOut(entry, accountId))}\n\n`,
              );
              since = entry.seq;
            }
            return true;
          }
          const session = await storage.sandboxSessions.getById(sessionId);
          if (session?.status !== "active" || session.expiresAt <= clock.now()) {
            send(`event: end\ndata: ${JSON.stringify({ type: "end", reason: "sandbox_ended" })}\n\n`);
            return false;
          }
          if (Date.now() >= waitUntil) {
            send(": keep-alive\n\n");
            return true;
          }
          await new Promise((resolve) => setTimeout(resolve, pollMs));
        }
        return false;
      },
    });
  });
}
