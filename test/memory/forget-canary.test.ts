/**
 * The hard-delete canary: a memory holding a unique word is related, searched, exported and
 * then forgotten. Afterwards no route returns it, re-importing the earlier export does not bring
 * it back, and the word is gone from the database itself: from the SQLite main file and WAL
 * (after a checkpoint) and from every table of the PostgreSQL database.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "../../plugins/storage/sql-statement.ts";
import { embeddingsMode, storageTargets, type TestPlatform } from "../support/platforms.ts";
import {
  createMemoryPlatform,
  type ExportPayload,
  errorCode,
  type MemoryOut,
  newAccount,
  rowsHolding,
} from "./memory-client.ts";

type Account = Awaited<ReturnType<typeof newAccount>>;

async function sqliteFilesContain(test: TestPlatform, word: string): Promise<boolean> {
  // Moves every WAL frame into the main file and truncates the WAL to zero bytes.
  await test.platform.storage.execute("pragma wal_checkpoint(TRUNCATE)");
  const needle = Buffer.from(word, "utf8");
  for (const file of ["cairn.db", "cairn.db-wal"]) {
    const bytes = await readFile(join(test.dataDir, file)).catch(() => Buffer.alloc(0));
    if (bytes.includes(needle)) return true;
  }
  return false;
}

async function postgresTablesContain(test: TestPlatform, word: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: test.databaseUrl });
  await client.connect();
  try {
    // PostgreSQL leaves deleted rows in place as dead tuples until a vacuum reclaims them, and a
    // plain VACUUM only marks the space reusable. VACUUM FULL rewrites the tables and their
    // indexes (the inverted index's included), so what remains is what is live.
    for (const table of [
      "memories",
      "memory_relations",
      "memory_tombstones",
      "memory_embeddings",
      "memory_postings",
      "memory_terms",
    ]) {
      await client.query(`vacuum full ${table}`);
    }
    const tables = await client.query<{ name: string }>(
      "select quote_ident(table_schema) || '.' || quote_ident(table_name) as name from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema') and table_type = 'BASE TABLE'",
    );
    expect(tables.rows.map((row) => row.name)).toContain("public.memories");
    const found: string[] = [];
    for (const { name } of tables.rows) {
      const hits = await client.query(`select 1 from ${name} t where row_to_json(t)::text ilike $1 limit 1`, [
        `%${word}%`,
      ]);
      if (hits.rowCount) found.push(name);
    }
    return found;
  } finally {
    await client.end();
  }
}

describe.each(storageTargets)("forget leaves no trace on %s", (target) => {
  const canary = `zqxcanary${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const scope = "vault";
  let test: TestPlatform;
  let account: Account;
  let before: MemoryOut;
  let secret: MemoryOut;
  let after: MemoryOut;
  let exported: ExportPayload;

  const vectorsWithContext = async (memoryId: string) =>
    (
      await test.platform.storage.execute(
        sql`select memory_id from memory_embeddings where context_id = ${memoryId}`,
      )
    ).length;
  const databaseContains = async (word: string) =>
    target === "sqlite"
      ? sqliteFilesContain(test, word)
      : (await postgresTablesContain(test, word)).length > 0;

  beforeAll(async () => {
    test = await createMemoryPlatform(target);
    account = await newAccount(test);
    const { memory } = account;
    // One session: with embeddings on, the next memory's vector takes the canary's memory as
    // context (docs/memory.md#embeddings); the forget must drop that vector.
    const session = "canary-session";
    before = await memory.remember({
      content: "The Berlin office safe holds the vault code.",
      scope,
      source_session_id: session,
    });
    secret = await memory.remember({
      content: `The ${canary} vault code lives in the Berlin office safe.`,
      scope,
      source_session_id: session,
      metadata: { note: `${canary} in metadata` },
      source_content: `source text with ${canary}`,
      event_dates: [`${canary}-date`],
    });
    after = await memory.remember({
      content: "Nobody but Dana opens the Berlin office safe with the vault code.",
      scope,
      source_session_id: session,
    });
    // Unrelated memories churn the full-text index around the canary's entry. No other word
    // starts like the canary: FTS5 stores a term as a suffix of the one before it on a page.
    await memory.import({
      memories: Array.from({ length: 60 }, (_, index) => ({
        content: `Filler memory ${index} about fillerbirdsong and other birds.`,
        scope,
      })),
    });
    expect((await memory.search(canary)).memories[0].id).toBe(secret.id);
    expect((await memory.relations(secret.id)).relations.map((edge) => edge.target_memory_id)).toContain(
      before.id,
    );
    expect((await memory.relations(after.id)).relations.map((edge) => edge.target_memory_id)).toContain(
      secret.id,
    );
    // The search embedded every write: the next memory's vector was made after the canary's.
    if (embeddingsMode) expect(await vectorsWithContext(secret.id)).toBeGreaterThan(0);
    exported = await memory.export();
    expect(exported.memories.map((row) => row.id)).toContain(secret.id);
    expect(await databaseContains(canary)).toBe(true);
    await memory.forget(secret.id);
  });
  afterAll(() => test.close());

  it("no route returns the forgotten memory", async () => {
    const { memory } = account;
    for (const [path, method] of [
      [`/v1/memory/${secret.id}`, "GET"],
      [`/v1/memory/${secret.id}/relations`, "GET"],
      [`/v1/memory/${secret.id}`, "DELETE"],
    ]) {
      expect(await errorCode(await memory.send(path, { method }), 404)).toBe("memory_not_found");
    }
    for (const q of [
      canary,
      `"${canary}"`,
      "vault code Berlin office safe",
      "What was the vault code before?",
    ]) {
      expect((await memory.search(q)).memories.map((row) => row.id)).not.toContain(secret.id);
    }
    expect(rowsHolding((await memory.search(canary)).memories, canary)).toEqual([]);
    const listed = await memory.list({ include_superseded: true, limit: 100 });
    expect(listed.map((row) => row.id)).not.toContain(secret.id);
    const profile = await memory.profile({ limit: 100 });
    expect([...profile.static, ...profile.dynamic].map((row) => row.id)).not.toContain(secret.id);
    const again = await memory.export();
    expect(JSON.stringify(again)).not.toContain(canary);
    for (const row of [before, after]) {
      const edges = (await memory.relations(row.id, 100)).relations;
      expect(edges.flatMap((edge) => [edge.source_memory_id, edge.target_memory_id])).not.toContain(
        secret.id,
      );
    }
    expect((await memory.metrics(scope)).total_memories).toBe(
      listed.filter((row) => row.superseded_at === null).length,
    );
  });

  it("does not come back when an export taken before the forget is imported again", async () => {
    const { memory } = account;
    const result = await memory.import(exported);
    expect(result.memories.map((row) => row.content).join("\n")).not.toContain(canary);
    expect(rowsHolding((await memory.search(canary)).memories, canary)).toEqual([]);
    expect(JSON.stringify(await memory.export())).not.toContain(canary);
    expect(JSON.stringify(await memory.list({ include_superseded: true, limit: 100 }))).not.toContain(canary);
  });

  it("leaves no byte of the canary in the database", async () => {
    if (target === "sqlite") {
      expect(await sqliteFilesContain(test, canary)).toBe(false);
      // And the inverted index has no term for it, while a word still stored is there.
      const { execute } = test.platform.storage;
      for (const table of ["memory_terms", "memory_postings"]) {
        expect(await execute(`select term from ${table} where term like 'zqxcanary%'`)).toEqual([]);
        expect(
          (await execute(`select term from ${table} where term = 'fillerbirdsong'`)).length,
        ).toBeGreaterThan(0);
      }
    } else {
      expect(await postgresTablesContain(test, canary)).toEqual([]);
    }
    // No vector keeps the forgotten memory as its context.
    expect(await vectorsWithContext(secret.id)).toBe(0);
    // The check itself can see a word that is still stored.
    expect(await databaseContains("fillerbirdsong")).toBe(true);
  });
});
