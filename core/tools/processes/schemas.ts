/**
 * Background processes in sandboxes (docs/api.md#processes): shared pieces of their operations.
 * Each resolves the session (owned and active); the processes themselves are held by
 * `platform.backgroundProcesses`, keyed by session, so another session's process id is 404 like
 * an unknown one.
 */
import { z } from "zod";
import type { ProcessState } from "../../sandboxes/processes/background-processes.ts";
import type { ToolContext } from "../../tool.ts";
import { requireActiveSession } from "../sandboxes/sessions.ts";

export const processIdParameter = z.string().min(1).max(64).describe("Process id, from process_start");

export const processStatuses = ["running", "exited", "killed", "timed_out"] as const;

export const processStateOut = z.object({
  process_id: z.string(),
  command: z.string(),
  description: z.string().nullable(),
  status: z.enum(processStatuses),
  exit_code: z.number().int().nullable(),
  started_at: z.string(),
  ended_at: z.string().nullable(),
  deadline_at: z.string(),
  output_bytes: z.number().int(),
  output_start_offset: z.number().int(),
});

export function toProcessOut(state: ProcessState): z.input<typeof processStateOut> {
  return {
    process_id: state.processId,
    command: state.command,
    description: state.description,
    status: state.status,
    exit_code: state.exitCode,
    started_at: state.startedAt.toISOString(),
    ended_at: state.endedAt?.toISOString() ?? null,
    deadline_at: state.deadlineAt.toISOString(),
    output_bytes: state.outputBytes,
    output_start_offset: state.outputStartOffset,
  };
}

/** The REST binding of a process operation under /v1/sandboxes/:session_id/processes. */
export const processRoute = (method: "GET" | "POST", suffix: string, status = 200) => ({
  method,
  path: `/v1/sandboxes/:session_id/processes${suffix}`,
  status,
});

/** The session id of an owned, active session (404 otherwise). */
export async function activeSessionId(context: ToolContext<"storage">, sessionId: string): Promise<string> {
  return (await requireActiveSession(context, sessionId)).id;
}
