/**
 * Store-level memory tests: a test platform on `target` for the file's tests, its memory store
 * handed to them, closed after them.
 */
import { afterAll, beforeAll } from "vitest";
import type { MemoryStore } from "../../core/index.ts";
import { createTestPlatform, type StorageTarget, type TestPlatform } from "./platforms.ts";

export function memoryStoreUnderTest(target: StorageTarget): { test: TestPlatform; memories: MemoryStore } {
  const store = {} as { test: TestPlatform; memories: MemoryStore };
  beforeAll(async () => {
    store.test = await createTestPlatform(target, {
      environment: { SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000" },
    });
    store.memories = store.test.platform.storage.memories;
  });
  afterAll(async () => {
    await store.test?.close();
  });
  return store;
}
