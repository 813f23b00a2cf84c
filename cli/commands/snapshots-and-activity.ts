/**
 * `cairn snapshot create|ls|get|rm|restore` (docs/sandboxes.md#snapshots) and `cairn log` /
 * `cairn watch`, a sandbox's activity feed (docs/sandboxes.md#activity).
 */

import type { ActivityEntry } from "cairn-client";
import type { Command } from "commander";
import { group, leaf } from "../command-kit.ts";
import { authenticatedClient, type JsonOption, resolveSession } from "../context.ts";
import { colour, printFields, printJson, printLine, printTable, relativeTime, success } from "../output.ts";
import { schemaOption, toNumber, validateInput } from "../schemas.ts";

interface SessionOption extends JsonOption {
  session?: string;
}

const sizeText = (bytes: number) =>
  bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(2)} GiB` : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

function activityLine(entry: ActivityEntry): string {
  const exit = entry.exit_code === null ? "" : ` exit ${entry.exit_code}`;
  const bytes = entry.bytes === null ? "" : ` ${entry.bytes} B`;
  const who = entry.key_id === null ? "" : colour.dim(` key ${entry.key_id.slice(0, 8)}`);
  return `${entry.at} ${entry.kind}/${entry.operation} ${entry.subject}${exit}${bytes}${who}`;
}

export function addSnapshotAndActivityCommands(program: Command): void {
  const snapshots = group(
    program,
    "snapshot",
    "Snapshots of a sandbox's files, restored into new sandboxes",
    ["cairn snapshot create --label before-upgrade", "cairn snapshot restore <snapshot-id>"],
  );

  leaf(snapshots, "create", "Snapshot a session's /workspace and /tmp", ["cairn snapshot create --label v1"])
    .addOption(
      schemaOption("--session <id>", "create_snapshot", "session_id", "default: the only active session"),
    )
    .addOption(schemaOption("--label <label>", "create_snapshot", "label"))
    .action(async (options: SessionOption & { label?: string }) => {
      validateInput("create_snapshot", { session_id: options.session ?? "-", label: options.label });
      const { client } = await authenticatedClient();
      const sessionId = await resolveSession(client, options.session);
      const snapshot = await client.createSnapshot(sessionId, { label: options.label });
      if (options.json) return printJson(snapshot);
      success(
        `Snapshot ${colour.bold(snapshot.id)} (${sizeText(snapshot.size_bytes)}); cairn snapshot restore ${snapshot.id}`,
      );
    });

  leaf(snapshots, "ls", "List a session's snapshots", ["cairn snapshot ls --session 7c0e…"])
    .addOption(
      schemaOption("--session <id>", "list_snapshots", "session_id", "default: the only active session"),
    )
    .action(async (options: SessionOption) => {
      const { client } = await authenticatedClient();
      const sessionId = await resolveSession(client, options.session);
      const list = await client.listSnapshots(sessionId);
      if (options.json) return printJson(list);
      printTable(
        ["ID", "LABEL", "SIZE", "CREATED"],
        list.map((snapshot) => [
          snapshot.id,
          snapshot.label ?? "-",
          sizeText(snapshot.size_bytes),
          relativeTime(snapshot.created_at),
        ]),
        "No snapshots.",
      );
    });

  leaf(snapshots, "get <id>", "Show a snapshot", ["cairn snapshot get 3f2a…"]).action(
    async (id: string, options: JsonOption) => {
      const { client } = await authenticatedClient();
      const snapshot = await client.getSnapshot(id);
      if (options.json) return printJson(snapshot);
      printFields([
        ["ID", snapshot.id],
        ["Session", snapshot.session_id],
        ["Label", snapshot.label],
        ["Status", snapshot.status],
        ["Size", sizeText(snapshot.size_bytes)],
        ["Created", relativeTime(snapshot.created_at)],
      ]);
    },
  );

  leaf(snapshots, "rm <id>", "Delete a snapshot (needs an admin key)", ["cairn snapshot rm 3f2a…"]).action(
    async (id: string, options: JsonOption) => {
      const { client } = await authenticatedClient();
      await client.deleteSnapshot(id);
      if (options.json) return printJson({ status: "deleted", id });
      success(`Deleted snapshot ${id}`);
    },
  );

  leaf(snapshots, "restore <id>", "Create a new session whose files are the snapshot's", [
    "cairn snapshot restore 3f2a… --label copy",
  ])
    .addOption(schemaOption("--label <label>", "restore_snapshot", "label"))
    .action(async (id: string, options: JsonOption & { label?: string }) => {
      const { client } = await authenticatedClient();
      const session = await client.restoreSnapshot(id, { label: options.label });
      if (options.json) return printJson(session);
      success(
        `Session ${colour.bold(session.id)} restored from ${id}; expires ${relativeTime(session.expires_at)}`,
      );
    });

  leaf(program, "log", "Show a session's activity, newest first", ["cairn log --limit 20"])
    .addOption(
      schemaOption("--session <id>", "sandbox_log", "session_id", "default: the only active session"),
    )
    .addOption(schemaOption("--limit <n>", "sandbox_log", "limit").argParser(toNumber))
    .addOption(schemaOption("--offset <n>", "sandbox_log", "offset").argParser(toNumber))
    .action(async (options: SessionOption & { limit?: number; offset?: number }) => {
      const { client } = await authenticatedClient();
      const sessionId = await resolveSession(client, options.session);
      const page = await client.sandboxLog(sessionId, { limit: options.limit, offset: options.offset });
      if (options.json) return printJson(page);
      if (page.entries.length === 0) return printLine(colour.dim("No activity."));
      for (const entry of page.entries) printLine(activityLine(entry));
    });

  leaf(program, "watch", "Follow a session's activity live until it ends (Ctrl-C to stop)", ["cairn watch"])
    .addOption(
      schemaOption("--session <id>", "sandbox_log", "session_id", "default: the only active session"),
    )
    .action(async (options: SessionOption) => {
      const { client } = await authenticatedClient();
      const sessionId = await resolveSession(client, options.session);
      for await (const entry of client.watchSandbox(sessionId)) {
        process.stdout.write(options.json ? `${JSON.stringify(entry)}\n` : `${activityLine(entry)}\n`);
      }
    });
}
