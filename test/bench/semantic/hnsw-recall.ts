/**
 * HNSW recall@10 against exact search, for the semantic benchmark: each query asks the store's
 * real `nearest` (the path's HNSW index, iterative scan, the given ef_search; a small scope's
 * vectors compared exactly) and the same rows
 * ordered by exact cosine distance with index scans off, and counts how many of the exact ten the
 * index found. A row tied with the exact tenth (duplicate texts have equal distances) counts.
 */
import pg from "pg";
import type { EmbeddingPath, MemoryStore } from "../../../core/index.ts";
import {
  hnswIndexName,
  pathCondition,
  pathVector,
  vectorLiteral,
} from "../../../plugins/storage/embedding-paths.ts";

const tieTolerance = 1e-6;

export interface ExactAnswer {
  ids: Set<string>;
  /** The tenth distance: anything as close is as good an answer. */
  farthest: number;
}

/** The exact ten nearest of every query (a sequential scan: the HNSW index is not used). */
export async function exactNearest(
  databaseUrl: string,
  accountId: string,
  path: EmbeddingPath,
  queries: { vector: Float32Array; scope?: string }[],
): Promise<ExactAnswer[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const distance = `${pathVector(path, "e")} <=> $1::vector(${path.dimensions})`;
    const statement = `select e.memory_id, ${distance} as distance
      from memory_embeddings e join memories m on m.id = e.memory_id and m.content_hash = e.content_hash
      where e.account_id = $2 and ${pathCondition(path, "e")} and (m.expires_at is null or m.expires_at > now())
      and ($3::text is null or m.scope = $3)
      order by distance, e.memory_id limit 10`;
    await client.query("begin");
    await client.query("set local enable_indexscan = off");
    const plan = await client.query(`explain ${statement}`, [
      vectorLiteral((queries[0] as { vector: Float32Array }).vector),
      accountId,
      null,
    ]);
    const planText = plan.rows.map((row) => row["QUERY PLAN"]).join("\n");
    if (planText.includes(hnswIndexName(path)))
      throw new Error(`the exact query used the index:\n${planText}`);
    const answers: ExactAnswer[] = [];
    for (const query of queries) {
      const { rows } = await client.query<{ memory_id: string; distance: number }>(statement, [
        vectorLiteral(query.vector),
        accountId,
        query.scope ?? null,
      ]);
      answers.push({
        ids: new Set(rows.map((row) => row.memory_id)),
        farthest: Number(rows.at(-1)?.distance ?? Number.POSITIVE_INFINITY),
      });
    }
    await client.query("commit");
    return answers;
  } finally {
    await client.end();
  }
}

/**
 * How many scans PostgreSQL counted on the path's HNSW index: read before and after the HNSW
 * queries, it proves they used the index (an exact scan would make recall 1 whatever the index).
 */
export async function indexScans(databaseUrl: string, path: EmbeddingPath): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Backends report their counters at most once a second.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const { rows } = await client.query<{ scans: string }>(
      "select coalesce(sum(idx_scan), 0) as scans from pg_stat_user_indexes where indexrelname = $1",
      [hnswIndexName(path)],
    );
    return Number(rows[0]?.scans ?? 0);
  } finally {
    await client.end();
  }
}

/** Recall@10 of the store's HNSW search at `efSearch` against the exact answers, and its time, per query. */
export async function hnswRecall(
  memories: MemoryStore,
  options: {
    accountId: string;
    path: EmbeddingPath;
    queries: { vector: Float32Array; scope?: string }[];
    exact: ExactAnswer[];
    efSearch: number;
  },
): Promise<{ recalls: number[]; latencies: number[] }> {
  const recalls: number[] = [];
  const latencies: number[] = [];
  for (const [index, { vector, scope }] of options.queries.entries()) {
    const exact = options.exact[index] as ExactAnswer;
    const started = performance.now();
    const nearest = await memories.nearest(
      options.accountId,
      {
        path: options.path,
        vector,
        scope,
        limit: 10,
        includeSuperseded: true,
        fallbackLimit: 0,
        efSearch: options.efSearch,
      },
      new Date(),
    );
    latencies.push(performance.now() - started);
    const found = nearest.filter(
      (row) => exact.ids.has(row.id) || 1 - row.similarity <= exact.farthest + tieTolerance,
    ).length;
    recalls.push(exact.ids.size === 0 ? 1 : found / exact.ids.size);
  }
  return { recalls, latencies };
}
