/**
 * An embedding path as SQL: checked, then written into statements as literals. PostgreSQL's
 * HNSW index of a path is a partial expression index whose predicate names the path, and the
 * planner uses it only for a query whose WHERE clause names the same constants; the model id
 * comes from configuration or a model server's answer, so it is checked and quoted, never trusted.
 */
import { createHash } from "node:crypto";
import pgvector from "pgvector";
import type { EmbeddingPath } from "../../core/index.ts";
import { raw, type Sql, sql } from "./sql-statement.ts";

// What model ids look like (`org/name`, `name:tag`, `name@rev`), within the column's 200 characters.
const modelIdPattern = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,199}$/;
// pgvector's `vector` holds up to 16,000 dimensions; an HNSW index of `halfvec` up to 4,000.
const maximumDimensions = 16_000;
const maximumIndexedDimensions = 4_000;

export function checkedPath(path: EmbeddingPath): EmbeddingPath {
  if (!modelIdPattern.test(path.modelId)) throw new Error(`unusable embedding model id: ${path.modelId}`);
  if (!Number.isInteger(path.dimensions) || path.dimensions < 1 || path.dimensions > maximumDimensions) {
    throw new Error(`unusable embedding dimensions: ${path.dimensions}`);
  }
  if (!Number.isInteger(path.version) || path.version < 0 || path.version > 2_147_483_647) {
    throw new Error(`unusable embedding version: ${path.version}`);
  }
  return path;
}

/** The path's rows as a WHERE condition with literals (`alias` = the table's alias, or none). */
export function pathCondition(path: EmbeddingPath, alias = ""): string {
  const { modelId, dimensions, version } = checkedPath(path);
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  return `${column("model_id")} = '${modelId.replaceAll("'", "''")}' and ${column("dimensions")} = ${dimensions} and ${column("version")} = ${version}`;
}

/** The path's vectors as stored (single precision): what exact comparisons read. */
export function pathVector(path: EmbeddingPath, alias = ""): string {
  return `(${alias ? `${alias}.` : ""}embedding::vector(${checkedPath(path).dimensions}))`;
}

/**
 * The expression the path's HNSW index is built on and an index search orders by: the vectors in
 * half precision, which halves the index and the bytes each step of its walk compares (test/bench/
 * RESULTS.md) and indexes models of up to 4,000 dimensions. Scaled to unit length first (cosine
 * distance does not change): half precision ends at 65,504, and a provider's unnormalized vector
 * beyond it would fail every insert.
 */
export function pathIndexedVector(path: EmbeddingPath, alias = ""): string {
  const { dimensions } = checkedPath(path);
  return `(l2_normalize(${alias ? `${alias}.` : ""}embedding::vector(${dimensions}))::halfvec(${dimensions}))`;
}

/** A query's vector scaled to unit length as `vectorLiteral` writes it, for a `halfvec` cast. */
export function unitVectorLiteral(vector: Float32Array): string {
  const norm = Math.hypot(...vector);
  return vectorLiteral(norm > 0 ? vector.map((value) => value / norm) : vector);
}

const indexPrefix = "memory_embeddings_hnsw_";

/**
 * How the graph is built. pgvector's defaults (m 16, ef_construction 64) gave recall@10 0.963
 * against exact search at 30,000 memories at the default ef_search 200, and m 16 with
 * ef_construction 200 0.9755 at 100,000 (test/bench/RESULTS.md): more links per node and a wider
 * candidate list while building buy recall at every ef_search, for slower inserts and a larger
 * index.
 */
const hnswBuild = "m = 24, ef_construction = 200";

/** What the path's index is: cosine distance over `pathIndexedVector`, built with `hnswBuild`. */
const hnswDefinition = (path: EmbeddingPath) =>
  `using hnsw (${pathIndexedVector(path)} halfvec_cosine_ops) with (${hnswBuild}) where ${pathCondition(path)}`;

/**
 * A stable index name per path and definition (a hash: model ids hold characters identifiers
 * cannot). The definition is all of it, so a deployment whose index was built otherwise builds
 * the new one and drops the old.
 */
export function hnswIndexName(path: EmbeddingPath): string {
  const digest = createHash("sha256").update(hnswDefinition(path)).digest("hex");
  return `${indexPrefix}${digest.slice(0, 24)}`;
}

/** Whether HNSW can index the path's width (else its searches are exact scans). */
export const hnswIndexable = (path: EmbeddingPath) =>
  checkedPath(path).dimensions <= maximumIndexedDimensions;

/**
 * The statement creating the path's index, or null for a width HNSW cannot index. `concurrently`:
 * writes to the table go on while it builds (outside a transaction only).
 */
export function hnswIndexStatement(path: EmbeddingPath, { concurrently = false } = {}): string | null {
  if (!hnswIndexable(path)) return null;
  return `create index ${concurrently ? "concurrently " : ""}if not exists ${hnswIndexName(path)} on memory_embeddings ${hnswDefinition(path)}`;
}

/**
 * The least `maintenance_work_mem` an index build gets (a session's setting above it is kept):
 * pgvector builds the graph in it, and once the graph outgrows it the build goes on much slower,
 * on disk. PostgreSQL's default of 64 MB holds about 50,000 of these vectors; 100,000 memories
 * built in 319 s with it and in 127 s with 1 GB (test/bench/RESULTS.md). Taken only while building.
 */
export const hnswBuildMemory = "512MB";

/** The names of every path's index but `keep`'s, as PostgreSQL lists them. */
export const otherIndexesQuery = (keep: string): Sql =>
  sql`select indexname from pg_indexes where tablename = 'memory_embeddings' and indexname like ${raw(`'${indexPrefix}%'`)} and indexname <> ${keep}`;

/**
 * A vector as pgvector's text form, `[1,2,3]`: each float32 value is written as the shortest
 * decimal of its double, which PostgreSQL reads back as the same float32.
 */
export function vectorLiteral(vector: Float32Array): string {
  return pgvector.toSql(Array.from(vector)) as string;
}

/** A vector as SQLite stores it: float32, little-endian. */
export function vectorBytes(vector: Float32Array): Uint8Array {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (const [index, value] of vector.entries()) view.setFloat32(index * 4, value, true);
  return bytes;
}

/** Cosine similarity of `query` and a stored float32 little-endian vector of the same width. */
export function cosineWithBytes(query: Float32Array, queryNorm: number, stored: Uint8Array): number {
  const view = new DataView(stored.buffer, stored.byteOffset, stored.byteLength);
  let dot = 0;
  let norm = 0;
  for (let index = 0; index < query.length; index++) {
    const value = view.getFloat32(index * 4, true);
    dot += value * query[index];
    norm += value * value;
  }
  return norm === 0 || queryNorm === 0 ? 0 : dot / Math.sqrt(norm * queryNorm);
}

/** Checks a vector against its path before it is stored or searched with. */
export function checkedVector(path: EmbeddingPath, vector: Float32Array): Float32Array {
  if (vector.length !== path.dimensions) {
    throw new Error(`a vector of ${vector.length} dimensions on a path of ${path.dimensions}`);
  }
  for (const value of vector)
    if (!Number.isFinite(value)) throw new Error("a vector holds a non-finite value");
  return vector;
}
