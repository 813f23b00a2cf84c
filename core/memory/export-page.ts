/**
 * One page of an account's export (docs/memory.md#export-and-import). An account chooses how much
 * it stores, so an export answers in pages of at most `exportPageMemories` memories and about
 * `exportPageCharacters` of JSON, and each page's work (reading, shaping, measuring) takes turns
 * with other requests (core/event-loop-turns.ts): an export never holds the server's one thread
 * for the whole account, nor builds and validates hundreds of megabytes in one go.
 *
 * The walk goes through the rows in creation order (then id), each row followed by the edges
 * leaving it whose targets are live and in the export's scope, wherever those are in the walk.
 * A page stops before the first item that does not fit (a row, or an edge of a row with more
 * edges than a page holds), and its cursor says where the next one starts, so the pages together
 * hold every row and every edge exactly once: the single page of an account that fits is the
 * whole export, as before pages.
 */
import { createSlices } from "../event-loop-turns.ts";
import type { ExportRowKey, MemoryRecord, MemoryStore, RelationRecord } from "../ports/memory-store.ts";
import { relationTypes } from "./vocabulary.ts";

/** Memories in one page at most (what one export held before pages). */
export const exportPageMemories = 10_000;
/** JSON characters of memories and relations in one page at most, unless its first item is larger. */
export const exportPageCharacters = 4 * 1024 * 1024;

// Rows per statement (SQLite reads on the server's thread), and edges per statement.
const rowsPerRead = 50;
const relationsPerRead = 1_000;

type RelationKey = Pick<RelationRecord, "targetMemoryId" | "relationType">;

/** Where a page starts: after this row; and, unless `edgesAfter` is undefined, within its edges. */
export interface ExportCursor extends ExportRowKey {
  /** null: none of the row's edges yet; an edge: those after it; undefined: the row is done. */
  edgesAfter?: RelationKey | null;
}

export interface ExportPageRequest {
  scope: string | undefined;
  cursor: ExportCursor | null;
  now: Date;
  /** The page's bounds; the defaults outside tests. */
  limits?: { memories: number; characters: number };
}

export interface ExportPage<Memory, Relation> {
  memories: Memory[];
  relations: Relation[];
  /** Where the next page starts; null when this one ends the export. */
  next: ExportCursor | null;
}

/** How rows and edges look on the wire: what a page's size is measured in. */
export interface ExportShapes<Memory, Relation> {
  memory(row: MemoryRecord): Memory;
  relation(edge: RelationRecord): Relation;
}

type ExportReads = Pick<MemoryStore, "exportRows" | "exportRelations">;

export async function exportPage<Memory, Relation>(
  store: ExportReads,
  accountId: string,
  request: ExportPageRequest,
  shapes: ExportShapes<Memory, Relation>,
): Promise<ExportPage<Memory, Relation>> {
  const { scope, now } = request;
  const limits = request.limits ?? { memories: exportPageMemories, characters: exportPageCharacters };
  const slices = createSlices();
  const memories: Memory[] = [];
  const relations: Relation[] = [];
  let characters = 0;

  /** Adds the item when it fits (the page's first always does), measured as its JSON. */
  const fits = async (item: Memory | Relation, into: Array<Memory | Relation>) => {
    const size = JSON.stringify(item).length + 1;
    const first = memories.length + relations.length === 0;
    if (!first && characters + size > limits.characters) return false;
    into.push(item);
    characters += size;
    await slices.pause();
    return true;
  };
  const done = (next: ExportCursor | null): ExportPage<Memory, Relation> => ({ memories, relations, next });

  /** Adds `edges`; the cursor to stop at when one does not fit, else undefined. */
  const addEdges = async (row: ExportRowKey, edges: RelationRecord[], from: RelationKey | null) => {
    let last = from;
    for (const edge of edges) {
      if (!(await fits(shapes.relation(edge), relations))) return { ...row, edgesAfter: last };
      last = edge;
    }
    return undefined;
  };
  /** Every edge of one row after `from`, a statement at a time, however many it has. */
  const walkEdges = async (row: ExportRowKey, from: RelationKey | null) => {
    for (let after = from; ; ) {
      const edges = await store.exportRelations(
        accountId,
        { sourceIds: [row.id], scope, after: after ?? undefined, limit: relationsPerRead },
        now,
      );
      const stop = await addEdges(row, edges, after);
      if (stop || edges.length < relationsPerRead) return stop;
      after = edges[edges.length - 1];
    }
  };

  let after: ExportRowKey | null = request.cursor && {
    createdAt: request.cursor.createdAt,
    id: request.cursor.id,
  };
  if (after && request.cursor?.edgesAfter !== undefined) {
    const stop = await walkEdges(after, request.cursor.edgesAfter);
    if (stop) return done(stop);
  }
  for (;;) {
    const rows = await store.exportRows(accountId, { scope, after, limit: rowsPerRead }, now);
    if (rows.length === 0) return done(null);
    // The edges of the rows read, in one statement unless some row has more than it holds.
    const edges = await store.exportRelations(
      accountId,
      { sourceIds: rows.map((row) => row.id), scope, limit: relationsPerRead + 1 },
      now,
    );
    const bySource = edges.length > relationsPerRead ? undefined : groupBySource(edges);
    for (const row of rows) {
      if (memories.length >= limits.memories || !(await fits(shapes.memory(row), memories)))
        return done(after);
      const key = { createdAt: row.createdAt, id: row.id };
      const stop = bySource
        ? await addEdges(key, bySource.get(row.id) ?? [], null)
        : await walkEdges(key, null);
      if (stop) return done(stop);
      after = key;
    }
  }
}

function groupBySource(edges: RelationRecord[]): Map<string, RelationRecord[]> {
  const bySource = new Map<string, RelationRecord[]>();
  for (const edge of edges) {
    const list = bySource.get(edge.sourceMemoryId);
    if (list) list.push(edge);
    else bySource.set(edge.sourceMemoryId, [edge]);
  }
  return bySource;
}

// A cursor on the wire: base64url of compact JSON. Opaque to clients; checked when it comes back.
const maxIdLength = 36;

export function encodeExportCursor(cursor: ExportCursor): string {
  const edges =
    cursor.edgesAfter === undefined
      ? {}
      : { e: cursor.edgesAfter && [cursor.edgesAfter.targetMemoryId, cursor.edgesAfter.relationType] };
  const text = JSON.stringify({ c: cursor.createdAt.getTime(), i: cursor.id, ...edges });
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The cursor `text` encodes, or null when it is not one `encodeExportCursor` wrote. */
export function decodeExportCursor(text: string): ExportCursor | null {
  let value: unknown;
  try {
    value = JSON.parse(atob(text.replaceAll("-", "+").replaceAll("_", "/")));
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const { c, i, e } = value as Record<string, unknown>;
  const time = typeof c === "number" && Number.isSafeInteger(c) ? new Date(c) : undefined;
  if (!time || Number.isNaN(time.getTime()) || !isId(i)) return null;
  if (e === undefined || e === null) return { createdAt: time, id: i, edgesAfter: e };
  if (!Array.isArray(e) || e.length !== 2 || !isId(e[0])) return null;
  const type = relationTypes.find((known) => known === e[1]);
  if (type === undefined) return null;
  return { createdAt: time, id: i, edgesAfter: { targetMemoryId: e[0], relationType: type } };
}

function isId(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= maxIdLength;
}
