/**
 * The memory store's vectors (semantic search), for both dialects: SQLite keeps float32 BLOBs
 * and scans the account's newest rows exactly in JS; PostgreSQL keeps pgvector values and asks
 * the path's HNSW index. A vector belongs to the content hash it was computed from: one whose
 * memory changed or went away is never stored, never counted and never returned.
 */
import type { EmbeddingPath, MemoryStore, NearestMemory, StoredEmbedding } from "../../core/index.ts";
import { nearestLeadLength } from "../../core/ports/memory-store.ts";
import {
  checkedVector,
  cosineWithBytes,
  hnswBuildMemory,
  hnswIndexable,
  hnswIndexName,
  hnswIndexStatement,
  otherIndexesQuery,
  pathCondition,
  pathIndexedVector,
  pathVector,
  unitVectorLiteral,
  vectorBytes,
  vectorLiteral,
} from "./embedding-paths.ts";
import { memoryLockClass } from "./memory-account-lock.ts";
import type { MemoryContext } from "./memory-context.ts";
import type { Execute } from "./sql-execution.ts";
import { empty, list, raw, type Sql, sql } from "./sql-statement.ts";

type EmbeddingMethods = Pick<
  MemoryStore,
  | "embeddingWork"
  | "putEmbeddings"
  | "dropOtherEmbeddingPaths"
  | "nearest"
  | "embeddedCount"
  | "dropStaleContexts"
>;

/** A PostgreSQL vector search's row. */
interface Nearest {
  memory_id: string;
  distance: number | string;
  updated_at: Date;
  lead: string;
  said_at: Date;
}

/**
 * PostgreSQL compares a search exactly when it may return at most this many rows (a scope's, or
 * an account's) and they are at most half of the vectors the HNSW scan would walk past. The scan
 * walks past every other scope's and account's vectors to gather the searched ones: at 100,000
 * memories it took 41–49 ms for scopes of 4–7 % of them, where comparing their 4,500–7,400
 * vectors took 12–17 ms, and found the same rows (test/bench/RESULTS.md).
 */
const exactLimit = 8_000;

/** The advisory-lock class of HNSW index builds (two-key form, the index name's hash the second). */
const indexLockClass = 0x686e73;

export function createEmbeddingMethods(context: MemoryContext): EmbeddingMethods {
  // `runSession`: one connection outside any transaction (an index is built there); `indexedPaths`:
  // the paths whose HNSW index this process has made sure of.
  const { sqlite, run, runTransaction, runSession, inTransaction, time, indexedPaths } = context;
  // The start of a nearest row's content (`NearestMemory.lead`), in characters on both databases.
  const lead = raw(`substr(m.content, 1, ${nearestLeadLength})`);
  // When a nearest row was said (`NearestMemory.saidAt`).
  const saidAt = raw("coalesce(m.document_date, m.created_at)");
  // Memories' liveness, as the lexical candidates check it.
  const liveMemory = (now: Date) => sql`(m.expires_at is null or m.expires_at > ${time(now)})`;
  const where = (path: EmbeddingPath, alias = "") => raw(pathCondition(path, alias));

  // A session memory's context: the session's last row created before it
  // (memories_session_order_index), expired or not, so a vector never depends on when the
  // embedder ran (an expired row stays in the vectors it went into as it stays stored, until a
  // forget deletes it and them). Null for a memory without a session.
  const previous = sql`case when m.source_session_id is null then null else
     (select p.id from memories p where p.account_id = m.account_id and p.scope = m.scope and p.source_session_id = m.source_session_id
      and (p.created_at, p.id) < (m.created_at, m.id) order by p.created_at desc, p.id desc limit 1) end`;
  // The session's first row created after `m`: the memory `m` is context for.
  const next = sql`(select n.id from memories n where n.account_id = m.account_id and n.scope = m.scope and n.source_session_id = m.source_session_id
     and (n.created_at, n.id) > (m.created_at, m.id) order by n.created_at, n.id limit 1)`;

  const outsideTransaction = (method: string) => {
    if (inTransaction) throw new Error(`${method} runs outside a transaction only`);
  };

  /**
   * PostgreSQL: the path's HNSW index, made sure of at its first use by this process. Built
   * concurrently, so the table's writes (a forget, a new vector) go on during a build over many
   * rows (after an upgrade changed the index's definition: minutes at 100,000 memories), and with
   * room for the graph (`hnswBuildMemory`). One build at a time per index across the servers
   * sharing the database (a session lock, freed if its connection dies); an index a build that
   * died left invalid is dropped and built again.
   */
  async function ensureIndex(path: EmbeddingPath) {
    const statement = hnswIndexStatement(path, { concurrently: true });
    if (sqlite || statement === null || indexedPaths.has(statement)) return;
    const name = hnswIndexName(path);
    await runSession(async (session) => {
      await session(sql`select pg_advisory_lock(${indexLockClass}, hashtext(${name}))`);
      try {
        const [existing] = await session<{ valid: boolean }>(
          sql`select indisvalid as valid from pg_index where indexrelid = to_regclass(${name})`,
        );
        if (existing?.valid) return;
        if (existing) await session(`drop index concurrently if exists ${name}`);
        await session(
          sql`select set_config('maintenance_work_mem', ${hnswBuildMemory}, false) where pg_size_bytes(current_setting('maintenance_work_mem')) < pg_size_bytes(${hnswBuildMemory})`,
        );
        try {
          await session(statement);
        } catch (error) {
          // Another server's build (one without this lock) took the name first: what we want.
          const code = (error as { code?: string }).code;
          if (code !== "23505" && code !== "42P07") throw error;
        }
        await session("reset maintenance_work_mem");
      } finally {
        await session(sql`select pg_advisory_unlock(${indexLockClass}, hashtext(${name}))`);
      }
    });
    indexedPaths.add(statement);
  }

  /** Inserts or replaces the vectors whose memory still holds the content they were computed from. */
  async function store(transaction: Execute, path: EmbeddingPath, embeddings: StoredEmbedding[], at: Date) {
    const pathValues = list([path.modelId, path.dimensions, path.version]);
    const upsert = sql`on conflict (memory_id, model_id, dimensions, version) do update set scope = excluded.scope, content_hash = excluded.content_hash, embedding = excluded.embedding, context_id = excluded.context_id, created_at = excluded.created_at`;
    // A vector made with a context that is no longer the memory before it is not stored: that
    // memory was forgotten meanwhile (the vector would keep a trace of it), or a write put another
    // turn between them or moved the memory to another session (dropStaleContexts found no vector
    // to drop yet).
    const contextCurrent = (contextId: Sql) => sql`${contextId} = coalesce(${previous}, '')`;
    if (sqlite) {
      for (const embedding of embeddings) {
        const contextId = embedding.contextId ?? "";
        await transaction(
          sql`insert into memory_embeddings (account_id, memory_id, scope, model_id, dimensions, version, content_hash, embedding, context_id, created_at)
           select m.account_id, m.id, m.scope, ${pathValues}, m.content_hash, ${vectorBytes(embedding.vector)}, nullif(${contextId}, ''), ${time(at)} from memories m
           where m.id = ${embedding.memoryId} and m.account_id = ${embedding.accountId} and m.content_hash = ${embedding.contentHash} and ${contextCurrent(sql`${contextId}`)} ${upsert}`,
        );
      }
    } else {
      const column = (value: (embedding: StoredEmbedding) => string) => embeddings.map(value);
      await transaction(
        sql`insert into memory_embeddings (account_id, memory_id, scope, model_id, dimensions, version, content_hash, embedding, context_id, created_at)
         select m.account_id, m.id, m.scope, ${pathValues}, m.content_hash, t.embedding::vector, nullif(t.context_id, ''), ${time(at)}
         from unnest(${column((embedding) => embedding.accountId)}::varchar[], ${column((embedding) => embedding.memoryId)}::varchar[], ${column((embedding) => embedding.contentHash)}::varchar[], ${column((embedding) => vectorLiteral(embedding.vector))}::text[], ${column((embedding) => embedding.contextId ?? "")}::varchar[]) as t(account_id, memory_id, content_hash, embedding, context_id)
         join memories m on m.id = t.memory_id and m.account_id = t.account_id and m.content_hash = t.content_hash
         where ${contextCurrent(sql`t.context_id`)} ${upsert}`,
      );
    }
    // A vector of content its memory no longer holds goes, whichever vector it was.
    const ids = list(embeddings.map((embedding) => embedding.memoryId));
    await transaction(
      sql`delete from memory_embeddings where memory_id in (${ids}) and ${where(path)}
       and not exists (select 1 from memories m where m.id = memory_embeddings.memory_id and m.content_hash = memory_embeddings.content_hash)`,
    );
  }

  return {
    async embeddingWork(path, limit, now, memoryIds) {
      outsideTransaction("embeddingWork");
      const listed =
        memoryIds === undefined
          ? empty
          : sqlite
            ? sql`m.id in (${list(memoryIds.length > 0 ? memoryIds : [""])}) and `
            : sql`m.id = any(${[...memoryIds]}::varchar[]) and `;
      const rows = await run<{
        account_id: string;
        id: string;
        content: string;
        content_hash: string;
        context_id: string | null;
      }>(
        sql`select m.account_id, m.id, m.content, m.content_hash, ${previous} as context_id
         from memories m where ${listed}${liveMemory(now)}
         and not exists (select 1 from memory_embeddings e where e.memory_id = m.id and ${where(path, "e")} and e.content_hash = m.content_hash)
         order by m.updated_at, m.id limit ${limit}`,
      );
      const contextIds = [
        ...new Set(rows.flatMap((row) => (row.context_id === null ? [] : [row.context_id]))),
      ];
      const contexts = new Map<string, string>();
      for (let start = 0; start < contextIds.length; start += 500) {
        const found = await run<{ id: string; content: string }>(
          sql`select id, content from memories where id in (${list(contextIds.slice(start, start + 500))})`,
        );
        for (const row of found) contexts.set(row.id, row.content);
      }
      return rows.map((row) => {
        const content = row.context_id === null ? undefined : contexts.get(row.context_id);
        return {
          accountId: row.account_id,
          memoryId: row.id,
          content: row.content,
          contentHash: row.content_hash.trim(),
          context: content === undefined ? null : { memoryId: row.context_id as string, content },
        };
      });
    },

    async dropStaleContexts(accountId, written) {
      // A row appended to its session (a remember, a conversation imported in order) has no
      // vector yet and no turn after it: one lookup each finds that. Nothing to do for an account
      // without vectors (embeddings off).
      if (written.length === 0) return [];
      const vectors = await run(sql`select 1 from memory_embeddings where account_id = ${accountId} limit 1`);
      if (vectors.length === 0) return [];
      const followers = await run<{ id: string | null }>(
        sql`select ${next} as id from memories m where m.account_id = ${accountId} and m.id in (${list(written.map((row) => row.id))}) and m.source_session_id is not null`,
      );
      // A merged row may have changed session: its own vector and those it went into may be stale.
      const merged = written.flatMap((row) => (row.inserted ? [] : [row.id]));
      const dependents =
        merged.length === 0
          ? []
          : await run<{ memory_id: string }>(
              sql`select memory_id from memory_embeddings where account_id = ${accountId} and context_id in (${list(merged)})`,
            );
      const candidates = new Set([
        ...merged,
        ...followers.flatMap((row) => (row.id === null ? [] : [row.id])),
        ...dependents.map((row) => row.memory_id),
      ]);
      if (candidates.size === 0) return [];
      const dropped = await run<{ memory_id: string }>(
        sql`delete from memory_embeddings where account_id = ${accountId} and memory_id in (${list([...candidates])})
         and coalesce(context_id, '') <> coalesce((select ${previous} from memories m where m.id = memory_embeddings.memory_id), '')
         returning memory_id`,
      );
      return [...new Set(dropped.map((row) => row.memory_id))];
    },

    async putEmbeddings(path, embeddings) {
      outsideTransaction("putEmbeddings");
      for (const embedding of embeddings) checkedVector(path, embedding.vector);
      // The last vector of a memory wins (one statement cannot write a row twice).
      const latest = [...new Map(embeddings.map((embedding) => [embedding.memoryId, embedding])).values()];
      if (latest.length === 0) return;
      const at = new Date();
      if (sqlite) {
        await runTransaction((transaction) => store(transaction, path, latest, at));
        return;
      }
      await ensureIndex(path);
      // Per account under its write lock, so a forget or a write of the account is never half seen.
      for (const [accountId, ofAccount] of Map.groupBy(latest, (embedding) => embedding.accountId)) {
        await runTransaction(async (transaction) => {
          await transaction(sql`select pg_advisory_xact_lock(${memoryLockClass}, hashtext(${accountId}))`);
          await store(transaction, path, ofAccount, at);
        });
      }
    },

    async dropOtherEmbeddingPaths(keep, limit) {
      outsideTransaction("dropOtherEmbeddingPaths");
      const deleted = await run<{ memory_id: string }>(
        sql`delete from memory_embeddings where (memory_id, model_id, dimensions, version) in
         (select memory_id, model_id, dimensions, version from memory_embeddings where not (${where(keep)}) limit ${limit})
         returning memory_id`,
      );
      if (!sqlite && deleted.length < limit) {
        // No other path has vectors left: their indexes go too, and so does an index of this
        // path built otherwise (before its vectors were indexed in half precision, say), once
        // this one's is there: searches are never left without one.
        await ensureIndex(keep);
        const indexes = await run<{ indexname: string }>(otherIndexesQuery(hnswIndexName(keep)));
        for (const { indexname } of indexes) await run(`drop index if exists ${indexname}`);
      }
      return deleted.length;
    },

    async nearest(accountId, request, now) {
      const { path } = request;
      const query = checkedVector(path, request.vector);
      const scoped = request.scope !== undefined;
      const filter = sql`${scoped ? sql` and m.scope = ${request.scope}` : empty}${
        request.includeSuperseded ? empty : sql` and m.superseded_at is null`
      }`;
      const joined = sql`from memory_embeddings e join memories m on m.id = e.memory_id and m.content_hash = e.content_hash
        where e.account_id = ${accountId} and ${where(path, "e")} and ${liveMemory(now)}${filter}`;
      if (sqlite) {
        const rows = await run<{ id: string; updated_at: number; embedding: Uint8Array }>(
          sql`select m.id, m.updated_at, e.embedding ${joined} order by m.updated_at desc, m.id desc limit ${request.fallbackLimit}`,
        );
        const queryNorm = query.reduce((sum, value) => sum + value * value, 0);
        const scored = rows.map((row) => ({
          id: row.id,
          similarity: cosineWithBytes(query, queryNorm, row.embedding),
          updatedAt: new Date(Number(row.updated_at)),
        }));
        scored.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
        const nearest = scored.slice(0, request.limit);
        // The leads of the rows answered only: the scan may hold thousands of rows, and a
        // content read is the row's overflow pages too.
        const leads = new Map<string, { lead: string; said_at: number }>();
        if (nearest.length > 0) {
          const read = await run<{ id: string; lead: string; said_at: number }>(
            sql`select m.id, ${lead} as lead, ${saidAt} as said_at from memories m where m.id in (${list(nearest.map((row) => row.id))})`,
          );
          for (const row of read) leads.set(row.id, row);
        }
        return nearest.map((row): NearestMemory => {
          const read = leads.get(row.id);
          return { ...row, lead: read?.lead ?? "", saidAt: new Date(Number(read?.said_at ?? row.updatedAt)) };
        });
      }
      // Distances in the stored single precision; the HNSW walk orders by the index's half-
      // precision expression (the only order that uses it), and its rows come back with their
      // single-precision distance, by which they are sorted again.
      const distance = sql`${raw(pathVector(path, "e"))} <=> ${vectorLiteral(query)}::vector(${raw(String(path.dimensions))})`;
      // A path too wide for an index orders by the exact distance: its search is a scan anyway.
      const indexedDistance = !hnswIndexable(path)
        ? distance
        : sql`${raw(pathIndexedVector(path, "e"))} <=> ${unitVectorLiteral(query)}::halfvec(${raw(String(path.dimensions))})`;
      // The memories checks stay a filter of the HNSW scan: as a join, the planner estimates them
      // at one row once memory_embeddings is analysed and answers with an exact scan of every
      // vector (test/bench/semantic.ts found it; "offset 0" keeps the subquery from being turned
      // into that join). Within one scope, the vector's own scope turns the other scopes' rows
      // away before that lookup (the scan walks past them all); a vector stored before vectors
      // had one is checked by the lookup alone.
      const ownScope = scoped ? sql` and (e.scope = ${request.scope} or e.scope is null)` : empty;
      // HNSW's candidate list and pgvector 0.8's iterative scan (it keeps walking the graph while
      // the account and liveness filters reject rows, so other accounts' rows never starve the
      // answer; relaxed order: sorted exactly after), set by the statement itself for its own
      // transaction: a one-time filter, evaluated before the scan reads its first row. No
      // transaction of its own, so a search is two statements: the count, then this.
      const settings = sql`(select set_config('hnsw.ef_search', ${String(efSearch(request.efSearch))}, true) || set_config('hnsw.iterative_scan', 'relaxed_order', true)) is not null`;
      const filtered = sql`from memory_embeddings e where ${settings} and e.account_id = ${accountId} and ${where(path, "e")}${ownScope}
        and exists (select 1 from memories m where m.id = e.memory_id and m.content_hash = e.content_hash
          and ${liveMemory(now)}${filter} offset 0)`;
      // The rows the search may return, from the kept row counts (one row per scope): the
      // account's, and within one scope the scope's, with the vectors stored before vectors
      // carried a scope (counted to just past the limit: beyond it, the choice is the same). And
      // how many vectors the HNSW walk may pass: the table's, as PostgreSQL last estimated them
      // (-1 before its first analysis).
      const scopeCounts = sql`, sum(total) filter (where scope = ${request.scope}) as scoped,
               (select count(*) from (select 1 from memory_embeddings e where e.account_id = ${accountId} and ${where(path, "e")} and e.scope is null limit ${exactLimit + 1}) l) as unscoped`;
      const [counted] = await run<{ total: unknown; vectors: unknown; scoped?: unknown; unscoped?: unknown }>(
        sql`select sum(total) as total, (select reltuples from pg_class where oid = 'memory_embeddings'::regclass) as vectors${
          scoped ? scopeCounts : empty
        } from memory_counts where account_id = ${accountId}`,
      );
      const total = Number(counted?.total ?? 0);
      const searched = scoped ? Number(counted?.scoped ?? 0) + Number(counted?.unscoped ?? 0) : total;
      const passed = Math.max(total, Number(counted?.vectors ?? 0));
      // Every candidate compared exactly, the memories checks with each; leads read for the rows answered.
      const exactly = () =>
        run<Nearest>(
          sql`with candidates as materialized (select e.memory_id, ${distance} as distance, m.updated_at ${joined}),
           nearest as materialized (select memory_id, distance, updated_at from candidates order by distance, memory_id limit ${request.limit})
           select n.memory_id, n.distance, n.updated_at, ${lead} as lead, ${saidAt} as said_at from nearest n join memories m on m.id = n.memory_id
           order by n.distance, n.memory_id`,
        );
      let rows: Nearest[];
      if (total <= request.fallbackLimit) {
        // Few rows: compared exactly, as on SQLite (a materialized set keeps the HNSW index out).
        rows = await exactly();
      } else if (searched <= exactLimit && 2 * searched <= passed) {
        // A small share of the vectors (a scope, or an account among others): its vectors (an
        // index range) compared exactly, the nearest checked against their memories. When fewer
        // than the limit pass and there are more vectors than were checked, a live row may lie
        // beyond them: everything is compared then.
        const depth = 2 * request.limit;
        rows = await run<Nearest>(
          sql`with searched as materialized (select e.memory_id, e.content_hash, ${distance} as distance from memory_embeddings e
             where e.account_id = ${accountId} and ${where(path, "e")}${ownScope}),
           nearest as materialized (select memory_id, content_hash, distance from searched order by distance, memory_id limit ${depth})
           select n.memory_id, n.distance, m.updated_at, ${lead} as lead, ${saidAt} as said_at from nearest n join memories m on m.id = n.memory_id and m.content_hash = n.content_hash
           where m.account_id = ${accountId} and ${liveMemory(now)}${filter} order by n.distance, n.memory_id limit ${request.limit}`,
        );
        if (rows.length < request.limit && searched > depth) rows = await exactly();
      } else {
        rows = await run<Nearest>(
          sql`with nearest as materialized (select e.memory_id, ${distance} as distance ${filtered} order by ${indexedDistance} limit ${request.limit})
           select n.memory_id, n.distance, m.updated_at, ${lead} as lead, ${saidAt} as said_at from nearest n join memories m on m.id = n.memory_id
           order by n.distance, n.memory_id`,
        );
      }
      return rows.map((row) => ({
        id: row.memory_id,
        similarity: 1 - Number(row.distance),
        updatedAt: new Date(row.updated_at),
        lead: row.lead,
        saidAt: new Date(row.said_at),
      }));
    },

    async embeddedCount(accountId, scope, path, now) {
      const scoped = scope === undefined ? empty : sql` and m.scope = ${scope}`;
      const [row] = await run<{ total: number | string }>(
        sql`select count(*) as total from memory_embeddings e join memories m on m.id = e.memory_id and m.content_hash = e.content_hash
         where e.account_id = ${accountId} and ${where(path, "e")} and ${liveMemory(now)} and m.superseded_at is null${scoped}`,
      );
      return Number(row.total);
    },
  };
}

/** hnsw.ef_search's range is 1…1000. */
function efSearch(value: number): number {
  return Math.min(1000, Math.max(1, Math.trunc(Number.isFinite(value) ? value : 40)));
}
