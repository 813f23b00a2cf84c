/**
 * The plugin host's tables (migrations 0012 and 0013) in raw SQL over the bound statements, the
 * style of the other per-account repositories: plugins' key-value rows, the hook delivery queue,
 * and sandboxes' bounded activity log.
 */
import type {
  PluginEventQueue,
  PluginEventRecord,
  PluginStoreEntry,
  PluginStoreRepository,
  SandboxActivity,
  SandboxActivityLog,
} from "../../core/ports/plugin-storage.ts";
import { sqlTimestamp } from "./memory-rows.ts";
import type { Execute, RunTransaction } from "./memory-store.ts";
import type { Dialect } from "./migrations/index.ts";

const placeholders = (values: readonly unknown[]) => values.map(() => "?").join(", ");
const readTime = (value: unknown) => new Date(value as string | number | Date);

export function createPluginStoreRepository(
  execute: Execute,
  runTransaction: RunTransaction,
  dialect: Dialect,
): PluginStoreRepository {
  const time = sqlTimestamp(dialect);
  const read = (row: Record<string, unknown>): PluginStoreEntry => ({
    key: row.item_key as string,
    value: row.value as string,
    updatedAt: readTime(row.updated_at),
  });
  return {
    async get(plugin, accountId, key) {
      const [row] = await execute(
        "select item_key, value, updated_at from plugin_store where plugin = ? and account_id = ? and item_key = ?",
        [plugin, accountId, key],
      );
      return row ? read(row) : null;
    },
    set(plugin, accountId, key, value, now, maxKeys) {
      return runTransaction(async (run) => {
        const updated = await run<{ item_key: string }>(
          "update plugin_store set value = ?, updated_at = ? where plugin = ? and account_id = ? and item_key = ? returning item_key",
          [value, time(now), plugin, accountId, key],
        );
        if (updated.length > 0) return true;
        // A new key: counted under the account row's lock on PostgreSQL, so racing writes cannot pass the cap.
        if (dialect === "postgresql")
          await run("select id from accounts where id = ? for update", [accountId]);
        const [{ total }] = await run<{ total: number | string }>(
          "select count(*) as total from plugin_store where plugin = ? and account_id = ?",
          [plugin, accountId],
        );
        if (Number(total) >= maxKeys) return false;
        await run(
          "insert into plugin_store (plugin, account_id, item_key, value, updated_at) values (?, ?, ?, ?, ?) on conflict (plugin, account_id, item_key) do update set value = excluded.value, updated_at = excluded.updated_at",
          [plugin, accountId, key, value, time(now)],
        );
        return true;
      });
    },
    async delete(plugin, accountId, key) {
      const deleted = await execute(
        "delete from plugin_store where plugin = ? and account_id = ? and item_key = ? returning item_key",
        [plugin, accountId, key],
      );
      return deleted.length > 0;
    },
    async list(plugin, accountId, { prefix, limit, after }) {
      const rows = await execute(
        `select item_key, value, updated_at from plugin_store where plugin = ? and account_id = ? and substr(item_key, 1, ?) = ?${after === undefined ? "" : " and item_key > ?"} order by item_key limit ?`,
        [plugin, accountId, prefix.length, prefix, ...(after === undefined ? [] : [after]), limit],
      );
      return rows.map(read);
    },
  };
}

export function createPluginEventQueue(execute: Execute, dialect: Dialect): PluginEventQueue {
  const time = sqlTimestamp(dialect);
  const columns = "id, plugin, event, account_id, payload, attempts, due_at, created_at";
  const read = (row: Record<string, unknown>): PluginEventRecord => ({
    id: row.id as string,
    plugin: row.plugin as string,
    event: row.event as string,
    accountId: row.account_id as string,
    payload: row.payload as string,
    attempts: Number(row.attempts),
    dueAt: readTime(row.due_at),
    createdAt: readTime(row.created_at),
  });
  return {
    async enqueue(events) {
      if (events.length === 0) return;
      const rows = events.map(() => "(?, ?, ?, ?, ?, ?, ?, ?)").join(", ");
      await execute(
        `insert into plugin_events (${columns}) values ${rows}`,
        events.flatMap((event) => [
          event.id,
          event.plugin,
          event.event,
          event.accountId,
          event.payload,
          event.attempts,
          time(event.dueAt),
          time(event.createdAt),
        ]),
      );
    },
    async due(now, plugins, limit) {
      if (plugins.length === 0) return [];
      const rows = await execute(
        `select ${columns} from plugin_events where due_at <= ? and plugin in (${placeholders(plugins)}) order by due_at, created_at, id limit ?`,
        [time(now), ...plugins, limit],
      );
      return rows.map(read);
    },
    async nextDue(plugins) {
      if (plugins.length === 0) return null;
      const [row] = await execute<{ due_at: unknown }>(
        `select min(due_at) as due_at from plugin_events where plugin in (${placeholders(plugins)})`,
        [...plugins],
      );
      return row?.due_at == null ? null : readTime(row.due_at);
    },
    async reschedule(id, attempts, dueAt, lastError) {
      await execute("update plugin_events set attempts = ?, due_at = ?, last_error = ? where id = ?", [
        attempts,
        time(dueAt),
        lastError,
        id,
      ]);
    },
    async remove(id) {
      await execute("delete from plugin_events where id = ?", [id]);
    },
    async count() {
      const [row] = await execute<{ total: number | string }>("select count(*) as total from plugin_events");
      return Number(row.total);
    },
  };
}

export function createSandboxActivityLog(
  execute: Execute,
  runTransaction: RunTransaction,
  dialect: Dialect,
): SandboxActivityLog {
  const time = sqlTimestamp(dialect);
  return {
    async record(sessionId, activity, keep) {
      const row =
        activity.kind === "command"
          ? [
              activity.command,
              null,
              activity.exitCode,
              dialect === "sqlite" ? Number(activity.timedOut) : activity.timedOut,
            ]
          : [activity.path, activity.operation, null, null];
      await runTransaction(async (run) => {
        await run(
          "insert into sandbox_activity (session_id, kind, subject, operation, exit_code, timed_out, at) values (?, ?, ?, ?, ?, ?, ?)",
          [sessionId, activity.kind, ...row, time(activity.at)],
        );
        // Only the newest `keep` of a kind stay: the bound holds however long the sandbox lives.
        await run(
          "delete from sandbox_activity where session_id = ? and kind = ? and seq <= (select seq from sandbox_activity where session_id = ? and kind = ? order by seq desc limit 1 offset ?)",
          [sessionId, activity.kind, sessionId, activity.kind, keep],
        );
      });
    },
    async list(sessionId) {
      const rows = await execute(
        "select kind, subject, operation, exit_code, timed_out, at from sandbox_activity where session_id = ? order by seq",
        [sessionId],
      );
      return rows.map(
        (row): SandboxActivity =>
          row.kind === "command"
            ? {
                kind: "command",
                command: row.subject as string,
                exitCode: Number(row.exit_code),
                timedOut: Boolean(row.timed_out),
                at: readTime(row.at),
              }
            : {
                kind: "file",
                path: row.subject as string,
                operation: row.operation as "create" | "edit" | "view",
                at: readTime(row.at),
              },
      );
    },
    async clear(sessionId) {
      await execute("delete from sandbox_activity where session_id = ?", [sessionId]);
    },
  };
}
