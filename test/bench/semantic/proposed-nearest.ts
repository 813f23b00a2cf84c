/**
 * A candidate rewrite of PostgreSQL's `nearest`, measured beside the store's: the checks on
 * `memories` become an `exists (… offset 0)` filter of the HNSW scan (offset 0 keeps the planner
 * from turning it into a join, which it estimates at one row and answers with an exact scan of
 * every vector once the table is analysed). Recall against the exact answers and time per query.
 */
import pg from "pg";
import type { EmbeddingPath } from "../../../core/index.ts";
import {
  pathCondition,
  pathIndexedVector,
  pathVector,
  vectorLiteral,
} from "../../../plugins/storage/embedding-paths.ts";
import type { ExactAnswer } from "./hnsw-recall.ts";

export async function proposedNearestRecall(
  databaseUrl: string,
  options: {
    accountId: string;
    path: EmbeddingPath;
    queries: { vector: Float32Array; scope?: string }[];
    exact: ExactAnswer[];
    efSearch: number;
  },
): Promise<{ recalls: number[]; latencies: number[]; planUsesIndex: boolean }> {
  const { path } = options;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const distance = `${pathVector(path, "e")} <=> $1::vector(${path.dimensions})`;
    const indexedDistance = `${pathIndexedVector(path, "e")} <=> l2_normalize($1::vector(${path.dimensions}))::halfvec(${path.dimensions})`;
    const statement = `select e.memory_id, ${distance} as distance from memory_embeddings e
      where e.account_id = $2 and ${pathCondition(path, "e")}
      and exists (select 1 from memories m where m.id = e.memory_id and m.content_hash = e.content_hash
        and (m.expires_at is null or m.expires_at > now()) and ($3::text is null or m.scope = $3) offset 0)
      order by ${indexedDistance} limit 10`;
    const recalls: number[] = [];
    const latencies: number[] = [];
    let planUsesIndex = false;
    for (const [index, query] of options.queries.entries()) {
      const exact = options.exact[index] as ExactAnswer;
      const parameters = [vectorLiteral(query.vector), options.accountId, query.scope ?? null];
      await client.query("begin");
      await client.query("select set_config('hnsw.ef_search', $1, true)", [String(options.efSearch)]);
      await client.query("select set_config('hnsw.iterative_scan', 'relaxed_order', true)");
      if (index === 0) {
        const plan = await client.query(`explain ${statement}`, parameters);
        planUsesIndex = plan.rows.some((row) => String(row["QUERY PLAN"]).includes("hnsw"));
      }
      const started = performance.now();
      const { rows } = await client.query<{ memory_id: string; distance: number }>(statement, parameters);
      latencies.push(performance.now() - started);
      await client.query("commit");
      const found = rows.filter(
        (row) => exact.ids.has(row.memory_id) || Number(row.distance) <= exact.farthest + 1e-6,
      ).length;
      recalls.push(exact.ids.size === 0 ? 1 : found / exact.ids.size);
    }
    return { recalls, latencies, planUsesIndex };
  } finally {
    await client.end();
  }
}
