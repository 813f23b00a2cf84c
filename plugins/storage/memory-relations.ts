/**
 * Relations between memories: edges added by relation detection, an edge list per memory, each
 * recall seed's strongest neighbours with the rows at their far ends, and a page of an export's
 * edges.
 */
// core/ports/memory-text.ts, not core/index.ts: the search threads load this file and need none of the rest.

import type { MemoryRecord, MemoryStore, RelationRecord } from "../../core/index.ts";
import { createPacedSlices, createSlices } from "../../core/ports/memory-text.ts";
import { type MemoryContext, rowsPerArrayStatement } from "./memory-context.ts";
import type { IndexWrites } from "./memory-index-writes.ts";
import { memoryColumns } from "./memory-rows.ts";
import { empty, join, list, raw, sql } from "./sql-statement.ts";

type RelationMethods = Pick<MemoryStore, "addRelations" | "relations" | "neighbours" | "exportRelations">;

// SQLite: relation edges per INSERT (far below its parameter limit).
const relationChunk = 100;
const neighbourColumns = raw(
  memoryColumns
    .split(", ")
    .map((column) => `m.${column}`)
    .join(", "),
);

export function createRelationMethods(context: MemoryContext, index: IndexWrites): RelationMethods {
  const { run, sqlite, time, toRecord, toRelation } = context;
  return {
    async addRelations(accountId, relations) {
      if (relations.length === 0) return;
      await index.touch(accountId);
      const conflict = sql`on conflict (source_memory_id, target_memory_id, relation_type) do nothing`;
      const slices = sqlite ? createSlices() : createPacedSlices(accountId);
      if (!sqlite) {
        // Thousands of edges per statement (arrays): an import batch links up to 50,000 at once.
        for (let start = 0; start < relations.length; start += rowsPerArrayStatement) {
          const chunk = relations.slice(start, start + rowsPerArrayStatement);
          const column = (value: (relation: (typeof chunk)[number]) => unknown) => chunk.map(value);
          await run(
            sql`insert into memory_relations (account_id, source_memory_id, target_memory_id, relation_type, confidence, created_at)
               select ${accountId}, source, target, type, confidence, at
               from unnest(${column((relation) => relation.sourceMemoryId)}::varchar[], ${column((relation) => relation.targetMemoryId)}::varchar[], ${column((relation) => relation.relationType)}::varchar[], ${column((relation) => relation.confidence)}::float8[], ${column((relation) => time(relation.createdAt))}::timestamptz[]) as e(source, target, type, confidence, at)
               ${conflict}`,
          );
          await slices.pause();
        }
        return;
      }
      // One statement per chunk, not per edge (in process, a statement costs no round trip).
      for (let start = 0; start < relations.length; start += relationChunk) {
        const chunk = relations.slice(start, start + relationChunk);
        const edges = chunk.map(
          (relation) =>
            sql`(${list([
              accountId,
              relation.sourceMemoryId,
              relation.targetMemoryId,
              relation.relationType,
              relation.confidence,
              time(relation.createdAt),
            ])})`,
        );
        await run(
          sql`insert into memory_relations (account_id, source_memory_id, target_memory_id, relation_type, confidence, created_at)
             values ${join(edges)} ${conflict}`,
        );
        await slices.pause();
      }
    },

    async relations(accountId, id, limit, now) {
      const rows = await run(
        sql`select r.source_memory_id, r.target_memory_id, r.relation_type, r.confidence, r.created_at
           from memory_relations r join memories m on m.id = r.target_memory_id
           where r.account_id = ${accountId} and r.source_memory_id = ${id} and (m.expires_at is null or m.expires_at > ${time(now)})
           order by r.confidence desc, r.created_at desc, r.target_memory_id limit ${limit}`,
      );
      return rows.map(toRelation);
    },

    async neighbours(accountId, ids, perSeed, now) {
      const bySeed = new Map<string, RelationRecord[]>(ids.map((id) => [id, []]));
      if (ids.length === 0) return { bySeed, rows: [] };
      // Each seed's `perSeed` strongest edges and the rows at their far ends, all seeds in one
      // statement (a round trip less per recall on PostgreSQL). The cut ignores the far ends'
      // expiry, so it does not move with the clock: expired far ends are left out after it.
      const seedEdges = (id: string) =>
        sql`select * from (select cast(${id} as text) as seed, r.source_memory_id, r.target_memory_id, r.relation_type, r.confidence,
             r.created_at as relation_created_at, case when (m.expires_at is null or m.expires_at > ${time(now)}) then 1 else 0 end as far_live, ${neighbourColumns}
           from memory_relations r join memories m
             on m.id = case when r.source_memory_id = ${id} then r.target_memory_id else r.source_memory_id end and m.account_id = r.account_id
           where r.account_id = ${accountId} and (r.source_memory_id = ${id} or r.target_memory_id = ${id})
           order by r.confidence desc, m.updated_at desc, m.content_hash, m.scope, m.kind limit ${perSeed}) as edges`;
      const found = await run(join(ids.map(seedEdges), " union all "));
      const rows = new Map<string, MemoryRecord>();
      for (const row of found) {
        if (Number(row.far_live) !== 1) continue;
        bySeed.get(row.seed as string)?.push(toRelation({ ...row, created_at: row.relation_created_at }));
        if (!bySeed.has(row.id as string) && !rows.has(row.id as string))
          rows.set(row.id as string, toRecord(row));
      }
      return { bySeed, rows: [...rows.values()] };
    },

    async exportRelations(accountId, request, now) {
      if (request.sourceIds.length === 0) return [];
      const scoped = request.scope === undefined ? empty : sql` and t.scope = ${request.scope}`;
      // One source's edges after the last one read: a range of the primary key, however many it has.
      const sources =
        request.after === undefined
          ? sqlite
            ? sql`r.source_memory_id in (${list(request.sourceIds)})`
            : sql`r.source_memory_id = any(${request.sourceIds}::varchar[])`
          : sql`r.source_memory_id = ${request.sourceIds[0]} and (r.target_memory_id, r.relation_type) > (${request.after.targetMemoryId}, ${request.after.relationType})`;
      const rows = await run(
        sql`select r.source_memory_id, r.target_memory_id, r.relation_type, r.confidence, r.created_at
           from memory_relations r join memories t on t.id = r.target_memory_id and t.account_id = r.account_id
           where ${sources} and r.account_id = ${accountId} and (t.expires_at is null or t.expires_at > ${time(now)})${scoped}
           order by r.source_memory_id, r.target_memory_id, r.relation_type limit ${request.limit}`,
      );
      return rows.map(toRelation);
    },
  };
}
