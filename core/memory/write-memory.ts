/**
 * Writing memories (docs/memory.md#remember-and-upsert and #relations): the batched upsert that
 * remember, ingest and import share. The relation and supersession detection the linker runs on
 * what they queued is in link-writes.ts.
 */

import { sha256Hex } from "../auth/api-keys.ts";
import { createSlices, mapInSlices } from "../event-loop-turns.ts";
import type { MemoryKind, MemoryStore, MemoryWrite } from "../ports/memory-store.ts";
import { unionDates } from "./dates.ts";
import { indexTermCounts } from "./tokenize.ts";

export { linkQueued } from "./link-writes.ts";

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
  /** Its `contentHashOf`, when the caller already has it (for the identity digest). */
  contentHash?: string;
  /** Import only: timestamps carried over from an export. */
  createdAt?: Date;
  updatedAt?: Date;
}

/** A keyed one-way digest of a memory's identity, for tombstones: no content is recoverable, and without the server key a guessed sentence cannot be checked against it. */
export async function identityDigest(
  keyed: { digest(text: string): Promise<string> },
  scope: string,
  kind: MemoryKind,
  contentHash: string,
): Promise<string> {
  return keyed.digest(`${scope}\n${kind}\n${contentHash}`);
}

/** The SHA-256 (hex) of a memory's content: its row's hash and the root of its identity digest. */
export const contentHashOf = (content: string): Promise<string> => sha256Hex(content);

/**
 * The `contentHashOf` of many memories (unless given), one after the other, in slices: encoding
 * and hashing an import's 16 MiB at once held the serving thread for over 100 ms.
 */
export async function contentHashesOf(
  memories: ReadonlyArray<{ content: string; contentHash?: string }>,
): Promise<string[]> {
  const slices = createSlices();
  const hashes: string[] = [];
  for (const { content, contentHash } of memories) {
    hashes.push(contentHash ?? (await contentHashOf(content)));
    await slices.pause();
  }
  return hashes;
}

/** A memory ready to write: its row, content hash included (hashed before any transaction). */
export interface PreparedMemory {
  input: MemoryInput;
  write: MemoryWrite;
}

/**
 * Hashes and analyses memories before any transaction: the index terms of 500 memories of 32 KiB
 * take most of a second, worked out here in slices that take turns with other requests
 * (core/event-loop-turns.ts) instead of inside the write, which holds the database.
 */
export async function prepareMemories(inputs: MemoryInput[], now: Date): Promise<PreparedMemory[]> {
  const hashes = await contentHashesOf(inputs);
  return mapInSlices(inputs, (input, index) => ({
    input,
    write: {
      scope: input.scope,
      kind: input.kind,
      content: input.content,
      contentHash: hashes[index],
      metadata: input.metadata,
      sourceSessionId: input.sourceSessionId,
      sourceContent: input.sourceContent,
      documentDate: input.documentDate,
      eventDates: input.eventDates,
      importance: input.importance,
      expiresAt: input.expiresAt,
      createdAt: input.createdAt ?? now,
      updatedAt: input.updatedAt ?? now,
      indexTerms: indexTermCounts(input.content),
    },
  }));
}

/**
 * Writes memories in order in the caller's transaction: new rows and their index entries in one
 * statement per table, a row whose identity exists merged into it (same id), and one link job
 * per row for relation detection (`linkQueued`, run by the linker just after). Answers the ids in
 * input order, and the memories whose vectors went because their session context changed (a turn
 * written before theirs, a merge into another session: `dropStaleContexts`), to embed again.
 * `batchId` marks an import: its rows are linked to older rows, not to each other.
 */
export async function writeMemories(
  store: MemoryStore,
  accountId: string,
  memories: PreparedMemory[],
  now: Date,
  batchId: string | null = null,
): Promise<{ ids: string[]; unembedded: string[] }> {
  const results = await store.insertMany(
    accountId,
    memories.map((memory) => memory.write),
  );
  for (const [index, { id, inserted }] of results.entries()) {
    if (!inserted) await mergeInto(store, accountId, id, memories[index], now);
  }
  const unembedded = await store.dropStaleContexts(accountId, results);
  await store.enqueueLinks(
    accountId,
    results.map(({ id, inserted }) => ({ memoryId: id, batchId, inserted })),
    now,
  );
  return { ids: results.map((result) => result.id), unembedded };
}

/** Merges a write into the existing row with its identity key. */
async function mergeInto(
  store: MemoryStore,
  accountId: string,
  id: string,
  { input, write }: PreparedMemory,
  now: Date,
) {
  const existing = await store.getAny(accountId, id);
  if (!existing) return;
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
}
