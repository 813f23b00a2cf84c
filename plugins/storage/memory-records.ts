/**
 * The memory rows themselves: inserting (posted into the index as they land), updating,
 * superseding, reading back by id, listing, exporting, counting and deleting. A row's identity is
 * (account, scope, kind, content hash): an insert that meets an existing one is skipped here and
 * merged by the caller.
 */
// core/ports/memory-text.ts, not core/index.ts: the search threads load this file and need none of the rest.
import type { MemoryRecord, MemoryStore, MemoryWrite } from "../../core/index.ts";
import { createPacedSlices, createSlices, indexTermCounts } from "../../core/ports/memory-text.ts";
import type { MemoryContext } from "./memory-context.ts";
import { timeOrderedId } from "./memory-ids.ts";
import type { IndexWrites } from "./memory-index-writes.ts";
import { memoryColumns } from "./memory-rows.ts";
import { empty, join, list, raw, sql } from "./sql-statement.ts";

type RecordMethods = Pick<
  MemoryStore,
  | "findByIdentity"
  | "insertMany"
  | "update"
  | "supersede"
  | "get"
  | "getAny"
  | "getAnyMany"
  | "getMany"
  | "list"
  | "exportRows"
  | "metrics"
  | "delete"
>;

const columns = raw(memoryColumns);
// A statement's content at most, for an insert of many rows (a 16 MiB import: 500 rows).
const contentPerStatement = 256 * 1024;

export function createRecordMethods(
  context: MemoryContext,
  index: IndexWrites,
  embeddedCount: MemoryStore["embeddedCount"],
): RecordMethods {
  const { run, sqlite, time, json, toRecord, live, filtered, byIds, accountKey } = context;
  // Time-ordered ids on SQLite, random ones on PostgreSQL (memory-ids.ts says why).
  const newId = sqlite ? () => timeOrderedId() : () => crypto.randomUUID();
  // SQLite reads on the server's thread; PostgreSQL's rows arrive (and are parsed) a few at a
  // time anyway, and one statement keeps every id on the primary key (rows-by-id.test.ts).
  const rowsPerRead = sqlite ? 50 : Number.POSITIVE_INFINITY;

  const writeValues = (write: MemoryWrite) => [
    write.metadata === undefined ? "{}" : json(write.metadata),
    write.sourceSessionId,
    write.sourceContent,
    time(write.documentDate),
    json(write.eventDates),
    write.importance,
    time(write.expiresAt),
    time(write.updatedAt),
  ];

  const records: RecordMethods = {
    async findByIdentity(accountId, scope, kind, contentHash) {
      const rows = await run(
        sql`select ${columns} from memories where account_id = ${accountId} and scope = ${scope} and kind = ${kind} and content_hash = ${contentHash}`,
      );
      return rows[0] ? toRecord(rows[0]) : null;
    },

    async insertMany(accountId, writes) {
      if (writes.length === 0) return [];
      const rows = writes.map((write) => ({
        id: newId(),
        scope: write.scope,
        terms: write.indexTerms ?? indexTermCounts(write.content),
      }));
      const values = (position: number) => {
        const write = writes[position];
        const row = rows[position];
        return sql`(${list([
          row.id,
          accountId,
          write.scope,
          write.kind,
          write.content,
          write.contentHash,
          ...writeValues(write),
          time(write.createdAt),
          time(write.supersededAt),
          write.supersededById ?? null,
          row.terms.length,
        ])}, 0)`;
      };
      // A statement per `contentPerStatement` of content, in order; a row whose identity exists
      // (or came earlier in the batch) is skipped here and merged by the caller.
      const inserted = new Set<string>();
      const slices = sqlite ? createSlices() : createPacedSlices(accountId);
      for (let start = 0; start < writes.length; ) {
        let end = start + 1;
        let content = writes[start].content.length;
        while (end < writes.length && content + writes[end].content.length <= contentPerStatement)
          content += writes[end++].content.length;
        const found = await run<{ id: string }>(
          sql`insert into memories (id, account_id, scope, kind, content, content_hash, metadata, source_session_id, source_content, document_date, event_dates, importance, expires_at, updated_at, created_at, superseded_at, superseded_by_id, index_length, access_count)
             values ${join(Array.from({ length: end - start }, (_, offset) => values(start + offset)))}
             on conflict (account_id, scope, kind, content_hash) do nothing returning id`,
        );
        for (const row of found) inserted.add(row.id);
        start = end;
        await slices.pause();
      }
      const posted = rows.filter((row) => inserted.has(row.id));
      await index.post(accountId, posted);
      await index.count(accountId, index.scopeTotals(posted, 1));
      const results: Array<{ id: string; inserted: boolean }> = [];
      for (const [position, row] of rows.entries()) {
        if (inserted.has(row.id)) {
          results.push({ id: row.id, inserted: true });
          continue;
        }
        const write = writes[position];
        const existing = await records.findByIdentity(accountId, write.scope, write.kind, write.contentHash);
        if (!existing) throw new Error("identity conflict without a row");
        results.push({ id: existing.id, inserted: false });
      }
      return results;
    },

    async update(accountId, id, write) {
      const [
        metadata,
        sourceSessionId,
        sourceContent,
        documentDate,
        eventDates,
        importance,
        expiresAt,
        updatedAt,
      ] = writeValues(write);
      await run(
        sql`update memories set metadata = ${metadata}, source_session_id = ${sourceSessionId}, source_content = ${sourceContent}, document_date = ${documentDate}, event_dates = ${eventDates}, importance = ${importance}, expires_at = ${expiresAt}, updated_at = ${updatedAt}, superseded_at = ${time(write.supersededAt)}, superseded_by_id = ${write.supersededById ?? null} where id = ${id} and account_id = ${accountId}`,
      );
      await index.touch(accountId);
    },

    async supersede(accountId, targetIds, byId, at) {
      if (targetIds.length === 0) return;
      await index.touch(accountId);
      await run(
        sql`update memories set superseded_at = ${time(at)}, superseded_by_id = ${byId} where ${accountKey} = ${accountId} and id in (${list(targetIds)})`,
      );
    },

    async get(accountId, id, now) {
      const rows = await run(
        sql`select ${columns} from memories where id = ${id} and account_id = ${accountId} and ${live(now)}`,
      );
      return rows[0] ? toRecord(rows[0]) : null;
    },

    async getAny(accountId, id) {
      const rows = await run(
        sql`select ${columns} from memories where id = ${id} and account_id = ${accountId}`,
      );
      return rows[0] ? toRecord(rows[0]) : null;
    },

    async getAnyMany(accountId, ids) {
      // An import reads its 500 rows (16 MiB) back: a statement per `rowsPerRead`, with turns
      // between.
      const unique = [...new Set(ids)];
      const found: MemoryRecord[] = [];
      const slices = createSlices();
      for (let start = 0; start < unique.length; start += rowsPerRead) {
        for (const row of await run(byIds(columns, accountId, unique.slice(start, start + rowsPerRead))))
          found.push(toRecord(row));
        await slices.pause();
      }
      return found;
    },

    async getMany(accountId, ids, now) {
      if (ids.length === 0) return [];
      return (await run(byIds(columns, accountId, ids, live(now)))).map(toRecord);
    },

    async list(accountId, filter, now) {
      const rows = await run(
        sql`select ${columns} from memories where account_id = ${accountId} and ${live(now)}${filtered(filter)} order by updated_at desc, id desc limit ${filter.limit} offset ${filter.offset}`,
      );
      return rows.map(toRecord);
    },

    async exportRows(accountId, request, now) {
      const scoped = request.scope === undefined ? empty : sql` and scope = ${request.scope}`;
      // On the (account, [scope,] created_at, id) indexes: a page reads its own rows only. Every
      // created_at is written from a JS date (milliseconds), so the key comes back exactly.
      const after =
        request.after === null
          ? empty
          : sql` and (created_at, id) > (${time(request.after.createdAt)}, ${request.after.id})`;
      const rows = await run(
        sql`select ${columns} from memories where account_id = ${accountId}${scoped}${after} and ${live(now)} order by created_at, id limit ${request.limit}`,
      );
      return rows.map(toRecord);
    },

    async metrics(accountId, scope, now, path) {
      const scoped = scope === undefined ? empty : sql` and scope = ${scope}`;
      const rows = await run<{ kind: string; total: number | string }>(
        sql`select kind, count(*) as total from memories where account_id = ${accountId} and ${live(now)} and superseded_at is null${scoped} group by kind`,
      );
      const byKind = Object.fromEntries(rows.map((row) => [row.kind, Number(row.total)]));
      const total = Object.values(byKind).reduce((sum, count) => sum + count, 0);
      // Without a path (embeddings off) nothing counts as embedded.
      const embedded = path === undefined ? 0 : await embeddedCount(accountId, scope, path, now);
      return { total, byKind, embedded };
    },

    async delete(accountId, id) {
      // Postings first: the row's delete would cascade to them without counting terms down.
      await index.unpost(accountId, id);
      // Vectors explicitly, not only by the cascade (secure_delete overwrites them on SQLite), and
      // the vectors that took the row as context: they hold a trace of it.
      await run(sql`delete from memory_embeddings where memory_id = ${id} and account_id = ${accountId}`);
      const deleted = await run<{ id: string; scope: string; index_length: number | string | null }>(
        sql`delete from memories where id = ${id} and account_id = ${accountId} returning id, scope, index_length`,
      );
      if (deleted.length === 0) return null;
      const withContext = await run<{ memory_id: string }>(
        sql`delete from memory_embeddings where context_id = ${id} and account_id = ${accountId} returning memory_id`,
      );
      await index.count(
        accountId,
        new Map([[deleted[0].scope, { rows: -1, length: -Number(deleted[0].index_length ?? 0) }]]),
      );
      await run(
        sql`delete from memory_relations where account_id = ${accountId} and (source_memory_id = ${id} or target_memory_id = ${id})`,
      );
      // What this row had superseded is current again: forgetting a correction brings back
      // what it corrected, and no row keeps the forgotten id.
      await run(
        sql`update memories set superseded_at = null, superseded_by_id = null where account_id = ${accountId} and superseded_by_id = ${id}`,
      );
      return [...new Set(withContext.map((row) => row.memory_id))];
    },
  };
  return records;
}
