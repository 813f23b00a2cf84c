/**
 * Writing memories (docs/memory.md#remember-and-upsert and #relations): the upsert and the
 * relation and supersession detection that remember, ingest and import share.
 */
import { sha256Hex } from "../auth/api-keys.ts";
import type {
  MemoryKind,
  MemoryRecord,
  MemoryStore,
  MemoryWrite,
  RelationRecord,
} from "../ports/memory-store.ts";
import { unionDates } from "./dates.ts";
import { detectProfileRelation, type RelationProfile, relationProfile } from "./relations.ts";

export interface MemoryInput {
  content: string;
  scope: string;
  kind: MemoryKind;
  metadata: Record<string, unknown>;
  sourceSessionId: string | null;
  expiresAt: Date | null;
  sourceContent: string | null;
  documentDate: Date | null;
  eventDates: string[];
  importance: number;
  /** Import only: timestamps carried over from an export. */
  createdAt?: Date;
  updatedAt?: Date;
}

/** A keyed one-way digest of a memory's identity, for tombstones: no content is recoverable, and without the server key a guessed sentence cannot be checked against it. */
export async function identityDigest(
  keyed: { digest(text: string): Promise<string> },
  scope: string,
  kind: MemoryKind,
  content: string,
): Promise<string> {
  return keyed.digest(`${scope}\n${kind}\n${await sha256Hex(content)}`);
}

// Relation detection looks at this many most-recently-updated other memories of the scope.
export const relationWindow = 100;

// Relation profiles of recently seen contents: each write compares itself with the same window of
// recent rows, so their analysis is reused instead of redone per pair. Keyed by content (the
// profile is a pure function of it); the oldest entries go first once the cache is full.
const profileCacheSize = 4_096;
const profileCache = new Map<string, RelationProfile>();

function profileOf(content: string): RelationProfile {
  let profile = profileCache.get(content);
  if (profile === undefined) {
    profile = relationProfile(content);
    if (profileCache.size >= profileCacheSize)
      profileCache.delete(profileCache.keys().next().value as string);
    profileCache.set(content, profile);
  }
  return profile;
}

/** Inserts the memory, or merges it into the row with the same identity key (same id). */
export async function upsertMemory(
  store: MemoryStore,
  accountId: string,
  input: MemoryInput,
  now: Date,
): Promise<string> {
  const contentHash = await sha256Hex(input.content);
  const write: MemoryWrite = {
    scope: input.scope,
    kind: input.kind,
    content: input.content,
    contentHash,
    metadata: input.metadata,
    sourceSessionId: input.sourceSessionId,
    sourceContent: input.sourceContent,
    documentDate: input.documentDate,
    eventDates: input.eventDates,
    importance: input.importance,
    expiresAt: input.expiresAt,
    createdAt: input.createdAt ?? now,
    updatedAt: input.updatedAt ?? now,
  };
  const { id, inserted } = await store.insert(accountId, write);
  if (inserted) return id;
  const existing = await store.findByIdentity(accountId, input.scope, input.kind, contentHash);
  if (!existing) return id;
  await store.update(accountId, id, {
    ...write,
    sourceContent: input.sourceContent ?? existing.sourceContent,
    documentDate: input.documentDate ?? existing.documentDate,
    eventDates: unionDates([existing.eventDates, input.eventDates]),
    importance: Math.max(existing.importance, input.importance),
    updatedAt: input.updatedAt && input.updatedAt > existing.updatedAt ? input.updatedAt : now,
    // Stating a memory again makes it current again, even after something superseded it
    // (otherwise "blue" → "green" → "blue" would leave no current favorite color at all).
    supersededAt: null,
    supersededById: null,
  });
  return id;
}

/**
 * Compares each written row with the most recent other rows of its scope and stores the edges;
 * an "updates" edge supersedes its target.
 */
export async function linkMemories(
  store: MemoryStore,
  accountId: string,
  rows: MemoryRecord[],
  now: Date,
  options: { withinBatch: boolean } = { withinBatch: true },
) {
  // Within one write, earlier rows count as older than later ones; a row never links to its successor.
  const order = new Map(rows.map((row, index) => [row.id, index]));
  const byScope = new Map<string, MemoryRecord[]>();
  for (const row of rows) byScope.set(row.scope, [...(byScope.get(row.scope) ?? []), row]);
  for (const [scope, scopeRows] of byScope) {
    const others = await store.recent(accountId, scope, [], relationWindow + scopeRows.length, now);
    for (const row of scopeRows) {
      const position = order.get(row.id) as number;
      const older = others
        .filter((other) => {
          const otherPosition = order.get(other.id);
          if (otherPosition === undefined) return true;
          return options.withinBatch && otherPosition < position;
        })
        .slice(0, relationWindow);
      const edges: RelationRecord[] = [];
      const superseded: string[] = [];
      const profile = profileOf(row.content);
      for (const other of older) {
        const relation = detectProfileRelation(profile, profileOf(other.content));
        if (!relation) continue;
        edges.push({
          sourceMemoryId: row.id,
          targetMemoryId: other.id,
          relationType: relation.type,
          confidence: relation.confidence,
          createdAt: now,
        });
        if (relation.type === "updates" && other.supersededAt === null) superseded.push(other.id);
      }
      await store.addRelations(accountId, edges);
      await store.supersede(accountId, superseded, row.id, row.updatedAt);
    }
  }
}
