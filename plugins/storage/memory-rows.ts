/**
 * How memory rows travel between the store and SQL: timestamps (epoch milliseconds on SQLite,
 * timestamptz on PostgreSQL), JSON, text[] literals, and rows back into records.
 */
import type { MemoryRecord, RelationRecord } from "../../core/index.ts";
import type { Dialect } from "./migrations/index.ts";

export type Row = Record<string, unknown>;

export const memoryColumns =
  "id, scope, kind, content, metadata, source_session_id, source_content, document_date, event_dates, importance, access_count, last_accessed_at, expires_at, superseded_at, superseded_by_id, created_at, updated_at";

/**
 * A timestamp as a statement parameter: epoch milliseconds on SQLite (how MikroORM stores its
 * datetime columns there), a Date (timestamptz) on PostgreSQL.
 */
export function sqlTimestamp(dialect: Dialect) {
  return <Value extends Date | null | undefined>(date: Value) =>
    (date == null ? null : dialect === "sqlite" ? date.getTime() : date) as Value extends Date
      ? number | Date
      : null;
}

export function createMemoryRowCodec(dialect: Dialect) {
  const time = sqlTimestamp(dialect);
  const json = (value: unknown) => JSON.stringify(wellFormed(value));
  const readTime = (value: unknown): Date | null =>
    value == null ? null : new Date(value as string | number | Date);
  const readJson = <T>(value: unknown): T => (typeof value === "string" ? JSON.parse(value) : value) as T;

  const toRecord = (row: Row): MemoryRecord => ({
    id: row.id as string,
    scope: row.scope as string,
    kind: row.kind as MemoryRecord["kind"],
    content: row.content as string,
    metadata: readJson(row.metadata),
    sourceSessionId: (row.source_session_id as string | null) ?? null,
    sourceContent: (row.source_content as string | null) ?? null,
    documentDate: readTime(row.document_date),
    eventDates: readJson(row.event_dates),
    importance: Number(row.importance),
    accessCount: Number(row.access_count),
    lastAccessedAt: readTime(row.last_accessed_at),
    expiresAt: readTime(row.expires_at),
    supersededAt: readTime(row.superseded_at),
    supersededById: (row.superseded_by_id as string | null) ?? null,
    createdAt: readTime(row.created_at) as Date,
    updatedAt: readTime(row.updated_at) as Date,
  });

  const toRelation = (row: Row): RelationRecord => ({
    sourceMemoryId: row.source_memory_id as string,
    targetMemoryId: row.target_memory_id as string,
    relationType: row.relation_type as RelationRecord["relationType"],
    confidence: Number(row.confidence),
    createdAt: readTime(row.created_at) as Date,
  });

  return { time, json, readTime, toRecord, toRelation };
}

/**
 * The value with every unpaired surrogate replaced by U+FFFD, in keys and strings. Text columns
 * store such strings that way on both databases, but JSON.stringify keeps them as `\ud800`
 * escapes, which PostgreSQL's jsonb refuses (a 500) and SQLite would keep as they are.
 * Metadata nesting is bounded by the request schema.
 */
function wellFormed(value: unknown): unknown {
  if (typeof value === "string") return value.toWellFormed();
  if (Array.isArray(value)) return value.map(wellFormed);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => [key.toWellFormed(), wellFormed(child)]),
    );
  }
  return value;
}
