/** Shared pieces of the sandbox operations: the session wire shape and "owned and active" lookups. */
import { z } from "zod";
import { ServiceError, toServiceError } from "../../errors.ts";
import { sandboxRuntimeNames } from "../../ports/sandbox-runtime.ts";
import type { SandboxSessionRecord } from "../../ports/storage.ts";
import type { ToolContext } from "../../tool.ts";
import { requireAccount } from "../../tool.ts";

export const sessionIdParameter = z.string().min(1).max(64).describe("Sandbox id, from create_sandbox");

export const sandboxSessionOut = z.object({
  id: z.string(),
  status: z.enum(["active", "destroyed"]),
  label: z.string().nullable(),
  created_at: z.string(),
  destroyed_at: z.string().nullable(),
  expires_at: z.string(),
  ended_reason: z.enum(["destroyed", "expired"]).nullable(),
  runtime: z.enum(sandboxRuntimeNames),
  connect: z.object({ pod_name: z.string().nullable(), note: z.string() }).nullable(),
});

/**
 * The wire shape of a session as of `now`. A session past its expiry that the reaper has not
 * reached yet is shown as the reaper will leave it (destroyed at expires_at, "expired"): it is
 * already unusable and no longer billed, so "active" would be wrong.
 */
export function toSessionOut(stored: SandboxSessionRecord, now: Date): z.input<typeof sandboxSessionOut> {
  const session =
    stored.status === "active" && stored.expiresAt <= now
      ? {
          ...stored,
          status: "destroyed" as const,
          destroyedAt: stored.expiresAt,
          endedReason: "expired" as const,
        }
      : stored;
  return {
    id: session.id,
    status: session.status,
    label: session.label,
    created_at: session.createdAt.toISOString(),
    destroyed_at: session.destroyedAt?.toISOString() ?? null,
    expires_at: session.expiresAt.toISOString(),
    ended_reason: session.endedReason,
    runtime: session.runtime,
    connect:
      session.status === "destroyed" ? null : { pod_name: session.podName, note: session.connectNote ?? "" },
  };
}

export const sessionNotFound = () => new ServiceError("not_found", "Sandbox session not found or not active");

/** The session, if the caller owns it and it is active and unexpired; otherwise 404. */
export async function requireActiveSession(
  context: ToolContext<"storage">,
  sessionId: string,
): Promise<SandboxSessionRecord> {
  const session = await context.platform.storage.sandboxSessions.get(requireAccount(context), sessionId);
  if (session?.status !== "active" || session.expiresAt <= context.now) throw sessionNotFound();
  return session;
}

/** Runs a runtime call; anything but a ServiceError becomes 502 with the cause logged, never returned. */
export async function runtimeCall<T>(
  context: ToolContext,
  action: string,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ServiceError && error.code !== "internal_error") throw error;
    // The caller went away (a cancelled MCP call, a closed connection): no runtime fault to log.
    if (context.signal.aborted) throw error;
    context.logger.error({ err: toServiceError(error).cause ?? error, action }, "sandbox runtime failure");
    throw new ServiceError("sandbox_operation_failed", `Sandbox ${action} failed`, { cause: error });
  }
}
