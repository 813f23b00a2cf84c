/**
 * A sandbox's activity feed on the wire (docs/sandboxes.md#activity): every exec, process, file
 * operation, broker call, terminal session and snapshot, with who (the account and the API key),
 * what, when, the exit code and sizes; never file contents or secrets.
 */
import { z } from "zod";
import type { StoredSandboxActivity } from "../../ports/plugin-storage.ts";

export const activityOut = z.object({
  seq: z.number().int(),
  at: z.string(),
  kind: z.enum(["command", "file", "process", "broker", "terminal", "snapshot"]),
  /** exec for a command; create, edit, view, write, read, list, glob, grep for a file; open, close for a terminal; … */
  operation: z.string(),
  /** The command, the path, the process's command, the request's method and URL (no query), the terminal's shell. */
  subject: z.string(),
  exit_code: z.number().int().nullable(),
  timed_out: z.boolean().nullable(),
  bytes: z.number().int().nullable(),
  account_id: z.string(),
  key_id: z.string().nullable(),
  detail: z.string().nullable(),
});

export type ActivityOut = z.input<typeof activityOut>;

export function toActivityOut(entry: StoredSandboxActivity, accountId: string): ActivityOut {
  const common = {
    seq: entry.seq,
    at: entry.at.toISOString(),
    bytes: entry.bytes ?? null,
    account_id: accountId,
    key_id: entry.keyId ?? null,
    detail: entry.detail ?? null,
  };
  if (entry.kind === "command")
    return {
      ...common,
      kind: "command",
      operation: "exec",
      subject: entry.command,
      exit_code: entry.exitCode,
      timed_out: entry.timedOut,
    };
  if (entry.kind === "file")
    return {
      ...common,
      kind: "file",
      operation: entry.operation,
      subject: entry.path,
      exit_code: null,
      timed_out: null,
    };
  return {
    ...common,
    kind: entry.kind,
    operation: entry.operation,
    subject: entry.subject,
    exit_code: entry.exitCode ?? null,
    timed_out: null,
  };
}
