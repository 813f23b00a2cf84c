/**
 * The memory store port: persistence for memories and their relations, scoped to one account in
 * every call. Ranking, dedup rules, relation detection and extraction live in core
 * (core/memory, core/tools/memory); a store keeps rows and the inverted index and reads them back, so SQLite
 * and PostgreSQL give identical results.
 */

import type { MemoryKind, RelationType } from "../memory/vocabulary.ts";

export type { MemoryKind, RelationType };

export interface MemoryRecord {
  id: string;
  scope: string;
  kind: MemoryKind;
  content: string;
  metadata: Record<string, unknown>;
  sourceSessionId: string | null;
  sourceContent: string | null;
  documentDate: Date | null;
  eventDates: string[];
  importance: number;
  accessCount: number;
  lastAccessedAt: Date | null;
  expiresAt: Date | null;
  supersededAt: Date | null;
  supersededById: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a write stores; `id` is set by the store (or taken from an import). */
export type MemoryWrite = Omit<
  MemoryRecord,
  "id" | "accessCount" | "lastAccessedAt" | "supersededAt" | "supersededById"
> & {
  contentHash: string;
  supersededAt?: Date | null;
  supersededById?: string | null;
  /**
   * The content's index terms (`indexTermCounts`), when worked out before the transaction; the
   * store works them out itself otherwise.
   */
  indexTerms?: { counts: Map<string, number>; length: number };
};

export interface RelationRecord {
  sourceMemoryId: string;
  targetMemoryId: string;
  relationType: RelationType;
  confidence: number;
  createdAt: Date;
}

/** What relation detection reads of an older row. */
export type LinkCandidate = Pick<
  MemoryRecord,
  "id" | "content" | "expiresAt" | "supersededAt" | "supersededById" | "updatedAt"
>;

/** A written row waiting for relation detection. */
export interface LinkJob {
  seq: number;
  memoryId: string;
  /** Rows of one import share it: they are linked to older rows, not to each other. */
  batchId: string | null;
  /** The write inserted the row (not merged into an existing one). */
  inserted: boolean;
  /** When the write committed: the time the row is linked as of. */
  enqueuedAt: Date;
}

/** Where an export's walk over the rows is: after the row of this creation time and id. */
export interface ExportRowKey {
  createdAt: Date;
  id: string;
}

export interface ExportRowsRequest {
  /** Undefined = every scope. */
  scope?: string;
  after: ExportRowKey | null;
  limit: number;
}

export interface ExportRelationsRequest {
  sourceIds: string[];
  /** Undefined = every scope. */
  scope?: string;
  /** The source's last edge already read (`sourceIds` then holds that one source). */
  after?: Pick<RelationRecord, "targetMemoryId" | "relationType">;
  limit: number;
}

export interface MemoryFilter {
  /** Undefined = every scope. */
  scope?: string;
  includeSuperseded: boolean;
}

/** The account's corpus figures for BM25: every stored row of every scope counts. */
export interface TermStatistics {
  /** Per term: how many of the account's rows hold it (absent = none). */
  documentFrequency: Map<string, number>;
  totalDocuments: number;
  /** Mean indexed length of the account's rows. */
  averageLength: number;
  /** Raised by every change to the account's memories and relations (access counts aside):
   * what recall reads at one version holds at it. */
  version: number;
  /** Whether the account has writes queued for relation detection (memory-writer.ts). */
  linksQueued: boolean;
}

/** One term of one live row, as the inverted index holds it. */
export interface Posting {
  term: string;
  memoryId: string;
  scope: string;
  /** Occurrences of the term in the row. */
  frequency: number;
  /** The row's indexed length. */
  length: number;
}

/**
 * One term's whole postings list over every scope, a column per field (entry `i` of each is one
 * row's posting): what recall keeps in memory for a long list, without an object per posting.
 */
export interface PostingColumns {
  memoryIds: string[];
  /** Each row's scope; rows of one scope share one string. */
  scopes: string[];
  frequencies: Int32Array;
  lengths: Int32Array;
}

export interface AccessCount {
  id: string;
  count: number;
  at: Date;
}

export interface PostingsRequest {
  terms: string[];
  /** Undefined = every scope. */
  scope?: string;
  /** Only these rows (the candidates of rarer terms). */
  memoryIds?: string[];
}

export interface MemoryMetrics {
  total: number;
  byKind: Record<string, number>;
  embedded: number;
}

/**
 * Where a vector lives: one model, one width, one version of how texts are prepared for it. Search
 * compares a query only with vectors of the same path, so two embedding spaces never mix; a new
 * model (or version) is a new path, filled in the background while the old one still answers.
 */
export interface EmbeddingPath {
  modelId: string;
  dimensions: number;
  version: number;
}

/** A live memory without a vector on a path for its current content: work for the embedder. */
export interface EmbeddingWork {
  accountId: string;
  memoryId: string;
  content: string;
  contentHash: string;
  /**
   * For a memory of a source session, the one before it in that session (same scope and
   * `sourceSessionId`, the last live row created before it), embedded with it as context.
   */
  context: { memoryId: string; content: string } | null;
}

/** A memory's vector on a path, for the content it was computed from. */
export interface StoredEmbedding {
  accountId: string;
  memoryId: string;
  contentHash: string;
  /** Unit length, `path.dimensions` long. */
  vector: Float32Array;
  /** The memory embedded with it as context (`EmbeddingWork.context`): forgetting it drops the vector. */
  contextId?: string | null;
}

export interface NearestRequest {
  path: EmbeddingPath;
  /** Unit length, `path.dimensions` long. */
  vector: Float32Array;
  /** Undefined = every scope. */
  scope?: string;
  /** Rows to return, most similar first. */
  limit: number;
  /** Superseded rows too (a question about the past). */
  includeSuperseded: boolean;
  /**
   * SQLite: the exact scan covers only this many of the account's newest live rows
   * (SVC_MEMORY_VECTOR_FALLBACK_LIMIT), a development fallback. PostgreSQL: an account with at
   * most this many memories is compared exactly, without the HNSW index.
   */
  fallbackLimit: number;
  /** PostgreSQL: HNSW's candidate list size (SVC_MEMORY_HNSW_EF_SEARCH). SQLite ignores it. */
  efSearch: number;
}

/** A live memory near the query vector: cosine similarity in [-1, 1]. */
export interface NearestMemory {
  id: string;
  similarity: number;
  /** The row's `updatedAt`: fusion breaks ties by it before reading any row. */
  updatedAt: Date;
  /** The content's first `nearestLeadLength` characters: hybrid recall reads a speaker label
   * there, and whether it names a time. */
  lead: string;
  /** When the row was said: its `documentDate`, else its `createdAt` (a question naming a time
   * raises the rows said then, core/memory/dates.ts `queryPeriod`). */
  saidAt: Date;
}

/**
 * Characters of each nearest row's content `nearest` answers with (`NearestMemory.lead`): the
 * whole of nine LoCoMo turns in ten (their median is 116 characters, the 99th percentile 338), so
 * a time named in a turn is seen; 30 KB for a search's 100 rows.
 */
export const nearestLeadLength = 300;

export interface MemoryStore {
  /** Finds the row with this identity key (account, scope, kind, content hash), live or not. */
  findByIdentity(
    accountId: string,
    scope: string,
    kind: MemoryKind,
    contentHash: string,
  ): Promise<MemoryRecord | null>;
  /**
   * Inserts new rows and their index entries, in order, in one statement per table; a row whose
   * identity key exists (or appears earlier in `writes`) is not inserted, and its entry holds the
   * existing row's id with `inserted: false` (the caller then merges and calls `update`), so
   * concurrent duplicates converge on one row.
   */
  insertMany(accountId: string, writes: MemoryWrite[]): Promise<Array<{ id: string; inserted: boolean }>>;
  /** Replaces the mutable fields of an existing row (same id). */
  update(accountId: string, id: string, write: MemoryWrite): Promise<void>;
  /**
   * After `insertMany` and `update` (`written`: their answers), deletes the vectors whose session
   * context is no longer the memory before theirs: the turn after an inserted or moved row, a
   * merged row that changed session, and the turns that had it as context. Answers the memories
   * whose vectors went (to embed again).
   */
  dropStaleContexts(
    accountId: string,
    written: ReadonlyArray<{ id: string; inserted: boolean }>,
  ): Promise<string[]>;
  get(accountId: string, id: string, now: Date): Promise<MemoryRecord | null>;
  /** The row whatever its expiry (a write answers with the row it stored, even one already expired). */
  getAny(accountId: string, id: string): Promise<MemoryRecord | null>;
  /** `getAny` for many ids at once, in no particular order. */
  getAnyMany(accountId: string, ids: string[]): Promise<MemoryRecord[]>;
  getMany(accountId: string, ids: string[], now: Date): Promise<MemoryRecord[]>;
  /** Live rows, newest `updated_at` first. */
  list(
    accountId: string,
    filter: MemoryFilter & { limit: number; offset: number },
    now: Date,
  ): Promise<MemoryRecord[]>;
  /**
   * For each scope, its `limit` most recently updated rows live at `now` (newest first), for
   * relation detection, leaving out rows inserted by a link job queued after `linkedThrough`
   * (written after the jobs being linked).
   */
  recent(
    accountId: string,
    limits: ReadonlyMap<string, number>,
    now: Date,
    linkedThrough: number,
  ): Promise<Map<string, LinkCandidate[]>>;
  /** Queues relation detection for written rows, in order (docs/memory.md#relations). */
  enqueueLinks(
    accountId: string,
    jobs: Array<{ memoryId: string; batchId: string | null; inserted: boolean }>,
    at: Date,
  ): Promise<void>;
  /**
   * A number every change to the account's rows or relations raises (not access counts): the
   * linker compares it before and after working out relations outside a transaction.
   */
  version(accountId: string): Promise<number>;
  /** The account's oldest queued link jobs: `limit` of them, more to finish a batch. */
  linkJobs(accountId: string, limit: number): Promise<LinkJob[]>;
  /** Accounts with queued link jobs, the longest waiting first. Outside a transaction only. */
  linkAccounts(limit: number): Promise<string[]>;
  completeLinks(accountId: string, seqs: number[]): Promise<void>;
  /** Inserts edges (one per source, target, type; existing ones kept) and applies supersession. */
  addRelations(accountId: string, relations: RelationRecord[]): Promise<void>;
  supersede(accountId: string, targetIds: string[], byId: string, at: Date): Promise<void>;
  /** Outgoing edges of `id` whose target is live, by confidence desc. */
  relations(accountId: string, id: string, limit: number, now: Date): Promise<RelationRecord[]>;
  /**
   * 1-hop neighbours in search: for each of `ids`, its `perSeed` strongest edges (either end;
   * by confidence, then the far end's `updatedAt`, newest first, then its identity: the same
   * edges on every database and at every time) whose far end is live, and the rows at those far
   * ends, once each (the rows of `ids` themselves are not read).
   */
  neighbours(
    accountId: string,
    ids: string[],
    perSeed: number,
    now: Date,
  ): Promise<{ bySeed: Map<string, RelationRecord[]>; rows: MemoryRecord[] }>;
  /**
   * Hard delete of the row, its index entry, embeddings and every edge touching it; the rows it
   * had superseded are current again. Other memories' vectors that took it as context go too:
   * the answer lists those memories (to embed again), or is null when there was no such row.
   */
  delete(accountId: string, id: string): Promise<string[] | null>;
  /**
   * The terms' document frequencies and the account's totals and, in the same read, the postings
   * (in `shortLists.scope`, or every scope) of each term held by fewer than `shortLists.rows`
   * rows: a recall's short lists without a second round trip.
   */
  termStatistics(
    accountId: string,
    terms: string[],
    shortLists: { rows: number; scope?: string },
  ): Promise<TermStatistics & { shortPostings: Posting[] }>;
  /**
   * Postings of stored rows for `terms`, whether live, expired or superseded: the caller keeps
   * what it needs of the best-ranked rows (a posting never outlives its row).
   */
  postings(accountId: string, request: PostingsRequest): Promise<Posting[]>;
  /** Each term's whole postings list over every scope (an empty one for a term no row holds). */
  postingLists(accountId: string, terms: string[]): Promise<Map<string, PostingColumns>>;
  /** The rows' access counts as stored now (recall reads them for rows it kept in memory). */
  accessCounts(
    accountId: string,
    ids: string[],
  ): Promise<Array<Pick<MemoryRecord, "id" | "accessCount" | "lastAccessedAt">>>;
  /** Adds `count` accesses to each row, the last at `at` (docs/memory.md#access-counts). */
  recordAccess(accountId: string, accesses: AccessCount[]): Promise<void>;
  /** `embedded` is `embeddedCount` on `path`, the path search uses; 0 without one (embeddings off). */
  metrics(
    accountId: string,
    scope: string | undefined,
    now: Date,
    path?: EmbeddingPath,
  ): Promise<MemoryMetrics>;
  /**
   * Live rows (superseded included) for export in the export's order (`createdAt`, then `id`),
   * those after `request.after` only, at most `request.limit`: a page of the walk costs the page,
   * not the account's rows before it.
   */
  exportRows(accountId: string, request: ExportRowsRequest, now: Date): Promise<MemoryRecord[]>;
  /**
   * Edges leaving `request.sourceIds` whose targets are live (and in `request.scope` when given),
   * by source, target and type, at most `request.limit`; with `request.after` (one source only)
   * those after that edge of it.
   */
  exportRelations(accountId: string, request: ExportRelationsRequest, now: Date): Promise<RelationRecord[]>;
  /**
   * Forgotten identities, kept as one-way digests (never content) so an import cannot bring a
   * forgotten memory back; an explicit remember of the same content lifts the tombstone.
   */
  addTombstone(accountId: string, digest: string, at: Date): Promise<void>;
  clearTombstones(accountId: string, digests: string[]): Promise<void>;
  tombstoned(accountId: string, digests: string[]): Promise<Set<string>>;
  /**
   * Embeddings (semantic search; docs/memory.md#embeddings). `delete` removes a row's vectors in
   * its own transaction. Live rows of any account (superseded ones too: a question about the past
   * searches them) lacking a vector on `path` for their current content hash, oldest update
   * first, at most `limit`; with `memoryIds` (at most 500), among those rows only (looked up by
   * id, where the whole search reads every row), each with its session context. Outside a
   * transaction only.
   */
  embeddingWork(
    path: EmbeddingPath,
    limit: number,
    now: Date,
    memoryIds?: readonly string[],
  ): Promise<EmbeddingWork[]>;
  /**
   * Stores vectors on `path`, replacing an older vector of the same memory and path. A vector
   * whose memory is gone or whose content hash no longer matches is dropped, so an embedding that
   * finishes after a forget or an edit never brings old content back; so is one whose context is
   * no longer the memory before it in its session (forgotten meanwhile, or a write put another
   * turn between them or moved it to another session). A vector of the wrong width
   * or with a non-finite value throws. Outside a transaction only (it takes each account's write
   * lock itself).
   */
  putEmbeddings(path: EmbeddingPath, embeddings: StoredEmbedding[]): Promise<void>;
  /**
   * Deletes at most `limit` vectors on paths other than `keep` (call it once `keep` covers every
   * live row, again until it returns 0); returns how many. Outside a transaction only.
   */
  dropOtherEmbeddingPaths(keep: EmbeddingPath, limit: number): Promise<number>;
  /**
   * The account's live rows nearest to the vector on `path`, most similar first, ties by id
   * (PostgreSQL: the path's HNSW index; SQLite: exact over the newest `fallbackLimit` rows).
   */
  nearest(accountId: string, request: NearestRequest, now: Date): Promise<NearestMemory[]>;
  /**
   * How many of the account's live, not superseded rows (in `scope`) have a vector on `path` for
   * their current content: the rows `metrics` counts in `total`.
   */
  embeddedCount(
    accountId: string,
    scope: string | undefined,
    path: EmbeddingPath,
    now: Date,
  ): Promise<number>;
  /**
   * Runs `work` in one transaction. `large`: it writes much (an import, an ingest, a link run
   * worked out beforehand); where the database's own work would hold the serving thread (SQLite),
   * it runs on a thread of its own.
   */
  transaction<T>(work: (store: MemoryStore) => Promise<T>, options?: { large?: boolean }): Promise<T>;
}
