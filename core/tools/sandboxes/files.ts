/**
 * Shared pieces of the six file operations (docs/api.md#files). Each resolves the session (owned
 * and active), then runs the runtime-independent operation from core/sandboxes over the runtime's
 * file access; paths outside the sandbox's roots are 403 path_outside_sandbox there.
 */
import { z } from "zod";
import { ServiceError } from "../../errors.ts";
import type { FileActivityOperation } from "../../ports/plugin-storage.ts";
import type { SandboxRuntime } from "../../ports/sandbox-runtime.ts";
import { invalidField } from "../../sandboxes/files/file-entries.ts";
import type { ToolContext } from "../../tool.ts";
import { requireActiveSession, runtimeCall } from "./sessions.ts";

export const descriptionField = z
  .string()
  .max(500)
  .optional()
  .describe("Why you make this call, in a few words");
export const pathField = z.string().min(1).max(4096);
export const fileEntry = z.object({
  path: z.string(),
  is_dir: z.boolean(),
  size: z.number().int(),
  modified_at: z.string(),
});

/**
 * Runs a file operation on an active session; it enters the sandbox's activity feed once it
 * succeeded (`touched`: the path, the operation, the bytes moved; docs/sandboxes.md#activity).
 */
export async function withFiles<T>(
  context: ToolContext<"storage" | "sandboxRuntime" | "plugins">,
  sessionId: string,
  action: string,
  work: (files: ReturnType<SandboxRuntime["files"]>) => Promise<T>,
  touched?: { path: string; operation: FileActivityOperation; bytes?: (result: T) => number | null },
) {
  const session = await requireActiveSession(context, sessionId);
  const runtime = context.platform.sandboxRuntime;
  const result = await runtimeCall(context, action, async () => {
    await runtime.loadSandbox?.(session.id);
    return work(runtime.files(session.id));
  }).catch((error: unknown) => {
    // A runtime's refusal of the path ("Is a directory", "Path is too long") in the shape of
    // every 422: the path is the field the caller changes.
    if (error instanceof ServiceError && error.code === "validation_error" && !Array.isArray(error.details))
      throw invalidField("path", error.message);
    throw error;
  });
  if (touched)
    await context.platform.plugins.recordActivity(session.id, {
      kind: "file",
      path: touched.path,
      operation: touched.operation,
      at: context.now,
      keyId: context.credentialId ?? null,
      bytes: touched.bytes?.(result) ?? null,
    });
  return result;
}

/** The REST binding of a file operation: POST /v1/sandboxes/:session_id/files<suffix>. */
export const filesRoute = (suffix: string) => ({
  method: "POST" as const,
  path: `/v1/sandboxes/:session_id/files${suffix}`,
  status: 200,
});
