/**
 * Helpers for the memory suites: one platform per suite on a real database, accounts with API
 * keys, and a small typed client over the REST routes of docs/api.md#memory.
 *
 * The suite runs in two modes (vitest.config.ts): lexical, and with embeddings on
 * (`embeddingsMode`, CAIRN_TEST_EMBEDDINGS=on); the helpers below state what differs.
 */
import { expect } from "vitest";
import type { Clock } from "../../core/index.ts";
import {
  createAccountWithKey,
  createTestPlatform,
  embeddingsMode,
  type StorageTarget,
  type TestPlatform,
} from "../support/platforms.ts";

export { embeddingsMode };

/** The embedding figures metrics reports for `total` live memories (with embeddings on, all embedded). */
export function embeddingFigures(total: number) {
  return embeddingsMode
    ? {
        embedded_memories: total,
        embedding_coverage: total === 0 ? 0 : 1,
        embedding_model_id: "e5-small-v2",
      }
    : { embedded_memories: 0, embedding_coverage: 0, embedding_model_id: null };
}

/**
 * The rows of a search for a word no memory holds any more that would be wrong: lexically any row
 * at all; with embeddings on, fusion always seats the nearest row above the similarity floor,
 * so only a row that still holds the word is wrong.
 */
export function rowsHolding(memories: readonly MemoryOut[], word: string): MemoryOut[] {
  return memories.filter((row) => !embeddingsMode || JSON.stringify(row).includes(word));
}

export interface MemoryOut {
  id: string;
  scope: string;
  kind: string;
  content: string;
  metadata: Record<string, unknown>;
  source_session_id: string | null;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  source_content: string | null;
  document_date: string | null;
  event_dates: string[];
  importance: number;
  access_count: number;
  last_accessed_at: string | null;
  superseded_at: string | null;
  superseded_by_id: string | null;
  score?: number;
}

export interface RelationOut {
  source_memory_id: string;
  target_memory_id: string;
  relation_type: string;
  confidence: number;
  created_at?: string;
}

export interface ExportPayload {
  memories: (Omit<MemoryOut, "access_count" | "last_accessed_at" | "score"> & Record<string, unknown>)[];
  relations: RelationOut[];
}

/** A platform whose memory_ops bucket does not get in the way (the rate-limit suite sets its own). */
export function createMemoryPlatform(target: StorageTarget, options: { clock?: Clock } = {}) {
  return createTestPlatform(target, {
    clock: options.clock,
    environment: { SVC_MEMORY_RATE_LIMIT_PER_MINUTE: "1000000", SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000" },
  });
}

export type MemoryClient = ReturnType<typeof memoryClient>;

/** A client bound to one account's API key. */
export function memoryClient(test: TestPlatform, key: string) {
  const send = (
    path: string,
    init: { method?: string; json?: unknown; body?: string; headers?: HeadersInit } = {},
  ) => test.request(path, { ...init, credential: key });
  const query = (parameters: Record<string, string | number | boolean | undefined>) => {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(parameters))
      if (value !== undefined) search.set(name, String(value));
    const text = search.toString();
    return text ? `?${text}` : "";
  };
  async function expectJson<T>(response: Response, status: number): Promise<T> {
    const text = await response.text();
    expect(response.status, text).toBe(status);
    return (text ? JSON.parse(text) : null) as T;
  }
  return {
    send,
    query,
    remember: async (body: Record<string, unknown>) =>
      expectJson<MemoryOut>(await send("/v1/memory", { method: "POST", json: body }), 201),
    ingest: async (body: Record<string, unknown>) =>
      expectJson<{ source_session_id: string | null; memories: MemoryOut[] }>(
        await send("/v1/memory/ingest", { method: "POST", json: body }),
        201,
      ),
    import: async (body: unknown) =>
      expectJson<{ source_session_id: null; memories: MemoryOut[] }>(
        await send("/v1/memory/import", { method: "POST", json: body }),
        201,
      ),
    search: async (q: string, parameters: { scope?: string; limit?: number } = {}) =>
      expectJson<{ query: string; memories: MemoryOut[] }>(
        await send(`/v1/memory/search${query({ q, ...parameters })}`),
        200,
      ),
    list: async (
      parameters: { scope?: string; include_superseded?: boolean; limit?: number; offset?: number } = {},
    ) => expectJson<MemoryOut[]>(await send(`/v1/memory${query(parameters)}`), 200),
    get: async (id: string) => expectJson<MemoryOut>(await send(`/v1/memory/${id}`), 200),
    relations: async (id: string, limit?: number) =>
      expectJson<{ memory_id: string; relations: RelationOut[] }>(
        await send(`/v1/memory/${id}/relations${query({ limit })}`),
        200,
      ),
    profile: async (parameters: { scope?: string; limit?: number } = {}) =>
      expectJson<{ static: MemoryOut[]; dynamic: MemoryOut[] }>(
        await send(`/v1/memory/profile${query(parameters)}`),
        200,
      ),
    metrics: async (scope?: string) =>
      expectJson<{
        total_memories: number;
        by_kind: Record<string, number>;
        embedded_memories: number;
        embedding_coverage: number;
        embedding_model_id: string | null;
      }>(await send(`/v1/memory/metrics${query({ scope })}`), 200),
    export: async (scope?: string) =>
      expectJson<ExportPayload>(await send(`/v1/memory/export${query({ scope })}`), 200),
    forget: async (id: string) => expectJson<null>(await send(`/v1/memory/${id}`, { method: "DELETE" }), 204),
  };
}

/** A fresh account and its client. */
export async function newAccount(test: TestPlatform) {
  const account = await createAccountWithKey(test);
  return { ...account, memory: memoryClient(test, account.key) };
}

/** The error body's code, asserting the status. */
export async function errorCode(response: Response, status: number): Promise<string> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return (JSON.parse(text) as { error: { code: string } }).error.code;
}
