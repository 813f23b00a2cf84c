/**
 * The plugin host's tables (migrations 0012 and 0013) in raw SQL over the bound statements, the
 * style of the other per-account repositories: plugins' key-value rows, the hook delivery queue,
 * and sandboxes' bounded activity log.
 */
import type {
  FileActivityOperation,
  PluginEventQueue,
  PluginEventRecord,
  PluginStoreEntry,
  PluginStoreRepository,
  SandboxActivityLog,
  StoredSandboxActivity,
} from "../../core/ports/plugin-storage.ts";
import { sqlTimestamp } from "./memory-rows.ts";
import type { Dialect } from "./migrations/index.ts";
import type { Execute, RunTransaction } from "./sql-execution.ts";
import { empty, join, list, raw, sql } from "./sql-statement.ts";

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
        sql`select item_key, value, updated_at from plugin_store where plugin = ${plugin} and account_id = ${accountId} and item_key = ${key}`,
      );
      return row ? read(row) : null;
    },
    set(plugin, accountId, key, value, now, maxKeys) {
      return runTransaction(async (run) => {
        const updated = await run<{ item_key: string }>(
          sql`update plugin_store set value = ${value}, updated_at = ${time(now)} where plugin = ${plugin} and account_id = ${accountId} and item_key = ${key} returning item_key`,
        );
        if (updated.length > 0) return true;
        // A new key: counted under the account row's lock on PostgreSQL, so racing writes cannot pass the cap.
        if (dialect === "postgresql")
          await run(sql`select id from accounts where id = ${accountId} for update`);
        const [{ total }] = await run<{ total: number | string }>(
          sql`select count(*) as total from plugin_store where plugin = ${plugin} and account_id = ${accountId}`,
        );
        if (Number(total) >= maxKeys) return false;
        await run(
          sql`insert into plugin_store (plugin, account_id, item_key, value, updated_at) values (${plugin}, ${accountId}, ${key}, ${value}, ${time(now)}) on conflict (plugin, account_id, item_key) do update set value = excluded.value, updated_at = excluded.updated_at`,
        );
        return true;
      });
    },
    async delete(plugin, accountId, key) {
      const deleted = await execute(
        sql`delete from plugin_store where plugin = ${plugin} and account_id = ${accountId} and item_key = ${key} returning item_key`,
      );
      return deleted.length > 0;
    },
    async list(plugin, accountId, { prefix, limit, after }) {
      const afterKey = after === undefined ? empty : sql` and item_key > ${after}`;
      const rows = await execute(
        sql`select item_key, value, updated_at from plugin_store where plugin = ${plugin} and account_id = ${accountId} and substr(item_key, 1, ${prefix.length}) = ${prefix}${afterKey} order by item_key limit ${limit}`,
      );
      return rows.map(read);
    },
  };
}

export function createPluginEventQueue(execute: Execute, dialect: Dialect): PluginEventQueue {
  const time = sqlTimestamp(dialect);
  const columns = raw("id, plugin, event, account_id, payload, attempts, due_at, created_at");
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
      const rows = events.map(
        (event) =>
          sql`(${list([
            event.id,
            event.plugin,
            event.event,
            event.accountId,
            event.payload,
            event.attempts,
            time(event.dueAt),
            time(event.createdAt),
          ])})`,
      );
      await execute(sql`insert into plugin_events (${columns}) values ${join(rows)}`);
    },
    async due(now, plugins, limit) {
      if (plugins.length === 0) return [];
      const rows = await execute(
        sql`select ${columns} from plugin_events where due_at <= ${time(now)} and plugin in (${list(plugins)}) order by due_at, created_at, id limit ${limit}`,
      );
      return rows.map(read);
    },
    async nextDue(plugins) {
      if (plugins.length === 0) return null;
      const [row] = await execute<{ due_at: unknown }>(
        sql`select min(due_at) as due_at from plugin_events where plugin in (${list(plugins)})`,
      );
      return row?.due_at == null ? null : readTime(row.due_at);
    },
    async reschedule(id, attempts, dueAt, lastError) {
      await execute(
        sql`update plugin_events set attempts = ${attempts}, due_at = ${time(dueAt)}, last_error = ${lastError} where id = ${id}`,
      );
    },
    async remove(id) {
      await execute(sql`delete from plugin_events where id = ${id}`);
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
  const columns = raw("seq, kind, subject, operation, exit_code, timed_out, at, key_id, bytes, detail");
  const flag = (value: boolean | null) => (value === null || dialect !== "sqlite" ? value : Number(value));
  const read = (row: Record<string, unknown>): StoredSandboxActivity => {
    const facts = {
      seq: Number(row.seq),
      at: readTime(row.at),
      keyId: (row.key_id as string | null) ?? null,
      bytes: row.bytes === null || row.bytes === undefined ? null : Number(row.bytes),
      detail: (row.detail as string | null) ?? null,
    };
    if (row.kind === "command")
      return {
        ...facts,
        kind: "command",
        command: row.subject as string,
        exitCode: Number(row.exit_code),
        timedOut: Boolean(row.timed_out),
      };
    if (row.kind === "file")
      return {
        ...facts,
        kind: "file",
        path: row.subject as string,
        operation: row.operation as FileActivityOperation,
      };
    return {
      ...facts,
      kind: row.kind as "process" | "broker" | "terminal" | "snapshot",
      subject: row.subject as string,
      operation: (row.operation as string | null) ?? "",
      exitCode: row.exit_code === null ? null : Number(row.exit_code),
    };
  };
  return {
    async record(sessionId, activity, keep) {
      const [subject, operation, exitCode, timedOut] =
        activity.kind === "command"
          ? [activity.command, null, activity.exitCode, flag(activity.timedOut)]
          : activity.kind === "file"
            ? [activity.path, activity.operation, null, null]
            : [activity.subject, activity.operation, activity.exitCode ?? null, null];
      const values = [
        sessionId,
        activity.kind,
        subject,
        operation,
        exitCode,
        timedOut,
        time(activity.at),
        activity.keyId ?? null,
        activity.bytes ?? null,
        activity.detail ?? null,
      ];
      await runTransaction(async (run) => {
        await run(
          sql`insert into sandbox_activity (session_id, kind, subject, operation, exit_code, timed_out, at, key_id, bytes, detail) values (${list(values)})`,
        );
        // Only the newest `keep` of a kind stay: the bound holds however long the sandbox lives.
        await run(
          sql`delete from sandbox_activity where session_id = ${sessionId} and kind = ${activity.kind} and seq <= (select seq from sandbox_activity where session_id = ${sessionId} and kind = ${activity.kind} order by seq desc limit 1 offset ${keep})`,
        );
      });
    },
    async list(sessionId) {
      const rows = await execute(
        sql`select ${columns} from sandbox_activity where session_id = ${sessionId} order by seq`,
      );
      return rows.map(read);
    },
    async page(sessionId, offset, limit) {
      const rows = await execute(
        sql`select ${columns} from sandbox_activity where session_id = ${sessionId} order by seq desc limit ${limit} offset ${offset}`,
      );
      const [{ total }] = await execute<{ total: number | string }>(
        sql`select count(*) as total from sandbox_activity where session_id = ${sessionId}`,
      );
      return { entries: rows.map(read), total: Number(total) };
    },
    async after(sessionId, seq, limit) {
      const rows = await execute(
        sql`select ${columns} from sandbox_activity where session_id = ${sessionId} and seq > ${seq} order by seq limit ${limit}`,
      );
      return rows.map(read);
    },
    async clear(sessionId) {
      await execute(sql`delete from sandbox_activity where session_id = ${sessionId}`);
    },
  };
}
