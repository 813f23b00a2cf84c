/**
 * The `session-journal` plugin: when a sandbox ends (destroyed or expired), what its session did
 * goes into the account's memory, so the next task's recall finds it: "what did the last session
 * do", a file it edited, a command that failed. Each command with its exit code, and each file
 * touched through the file tools, becomes one memory with `source_session_id` = the sandbox id;
 * a summary memory names the session's span and counts. Delivery is at least once: the memories
 * are written with `remember`, which updates a memory of the same content instead of duplicating
 * it, so a repeated delivery changes nothing. `session-journal.recent` lists recent sessions from
 * the plugin's store.
 */
import { definePlugin, defineTool, type SandboxDestroyedEvent, z } from "../../../core/plugin.ts";

/** Memories per session beyond the summary: the newest commands and files (the memory bucket is shared with the agent). */
const maxCommandMemories = 20;
const maxFileMemories = 20;
/** Sessions the journal lists with `recent`. */
const keptSessions = 100;
const scope = "default";

const sessionSummary = z.object({
  sandbox_id: z.string(),
  reason: z.string(),
  created_at: z.string(),
  ended_at: z.string(),
  commands: z.number().int(),
  failed_commands: z.number().int(),
  files: z.array(z.string()),
});
type SessionSummary = z.output<typeof sessionSummary>;

/** Newest first in key order: the key holds the time left until the year 2286. */
const sessionKey = (endedAt: string, sandboxId: string) =>
  `session:${(9_999_999_999_999 - Date.parse(endedAt)).toString().padStart(13, "0")}:${sandboxId}`;

const clip = (text: string, length: number) =>
  text.length > length ? `${text.slice(0, length - 1)}…` : text;
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();
const verbs = { create: "created", edit: "edited", view: "viewed" } as const;

/** The memories a session leaves: a summary, then its commands and files, newest kept. */
export function journalEntries(event: SandboxDestroyedEvent): string[] {
  const id = event.sandbox_id;
  const failed = event.commands.filter((command) => command.exit_code !== 0 || command.timed_out);
  const files = [...new Set(event.files.map((file) => file.path))];
  const summary = [
    `Last session journal: sandbox session ${id} (${event.reason}) ran from ${event.created_at} to ${event.ended_at}`,
    `and ran ${event.commands.length} commands (${failed.length} failed)`,
    files.length > 0
      ? `and touched ${files.length} files: ${clip(files.join(", "), 600)}.`
      : "and touched no files.",
  ].join(" ");
  const commands = event.commands.slice(-maxCommandMemories).map((command) => {
    const outcome = command.timed_out ? "timed out" : `exited with code ${command.exit_code}`;
    return `In sandbox session ${id} the command \`${clip(oneLine(command.command), 400)}\` ${outcome} at ${command.at}.`;
  });
  const touched = new Map<string, SandboxDestroyedEvent["files"][number]>();
  for (const file of event.files) touched.set(`${file.operation}:${file.path}`, file);
  const fileEntries = [...touched.values()]
    .slice(-maxFileMemories)
    .map(
      (file) => `In sandbox session ${id} the file ${file.path} was ${verbs[file.operation]} at ${file.at}.`,
    );
  return [summary, ...commands, ...fileEntries];
}

const recent = defineTool({
  name: "recent",
  title: "Recent sandbox sessions",
  description:
    "List this account's recent sandbox sessions, newest first: when each ran, how many commands (and how many failed), which files it touched. For details, recall with the sandbox id or a file name.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    limit: z.number().int().min(1).max(keptSessions).default(10).describe("Most sessions to list"),
  }),
  output: z.object({ sessions: z.array(sessionSummary) }),
  bucket: { name: "journal_reads", perMinute: 60 },
  async handler(context, input) {
    const entries = await context.store.list<SessionSummary>({ prefix: "session:", limit: input.limit });
    return { sessions: entries.map((entry) => entry.value) };
  },
});

export default definePlugin({
  name: "session-journal",
  version: "1.0.0",
  tools: [recent],
  hooks: {
    async "sandbox.destroyed"(event, context) {
      for (const content of journalEntries(event)) {
        await context.memory.remember({ content, scope, kind: "fact", source_session_id: event.sandbox_id });
      }
      const summary: SessionSummary = {
        sandbox_id: event.sandbox_id,
        reason: event.reason,
        created_at: event.created_at,
        ended_at: event.ended_at,
        commands: event.commands.length,
        failed_commands: event.commands.filter((command) => command.exit_code !== 0 || command.timed_out)
          .length,
        files: [...new Set(event.files.map((file) => file.path))].slice(0, 50),
      };
      await context.store.set(sessionKey(event.ended_at, event.sandbox_id), summary);
      // The journal lists the newest sessions; older summaries go (their memories stay).
      const older = await context.store.list({ prefix: "session:", limit: 1_000 });
      for (const entry of older.slice(keptSessions)) await context.store.delete(entry.key);
      context.logger.info({ sandboxId: event.sandbox_id }, "session journaled");
    },
  },
});
