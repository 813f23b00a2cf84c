/**
 * A search thread (platform/memory-search-threads.ts): ranks the recalls it is sent over its own
 * database connection and posts the results back. On SQLite each recall reads one snapshot (one
 * read transaction), so every statement of it sees the same committed rows.
 */
import { parentPort, workerData } from "node:worker_threads";
import { type RecallRequest, recallMemories } from "../core/memory/recall.ts";
import { recallCacheBytes } from "../core/memory/recall-cache.ts";
import { trimHeapWhenIdle } from "../lib/idle-heap-trim/index.ts";
import { isPostgresUrl } from "../plugins/storage/connection-settings.ts";
import { type MemoryReaderSettings, openMemoryReader } from "../plugins/storage/memory-reader.ts";

interface RecallMessage {
  id: number;
  accountId: string;
  request: RecallRequest;
  /** Whether this thread is the account's home, which keeps what its recalls read. */
  keep: boolean;
}

const settings = workerData as MemoryReaderSettings;
const reader = openMemoryReader(settings);
const snapshot = !isPostgresUrl(settings.databaseUrl);
const port = parentPort as NonNullable<typeof parentPort>;
let recalls = 0;
trimHeapWhenIdle();

port.on("message", async (message: RecallMessage | "close" | "caches") => {
  if (message === "close") {
    await reader.close();
    port.close();
    return;
  }
  if (message === "caches") {
    port.postMessage({
      caches: { recalls, bytes: recallCacheBytes() },
    });
    return;
  }
  recalls++;
  try {
    const recall = (store: typeof reader.memories) =>
      recallMemories(store, message.accountId, message.request, message.keep);
    const result = snapshot ? await reader.memories.transaction(recall) : await recall(reader.memories);
    port.postMessage({ id: message.id, result });
  } catch (error) {
    // The driver's code goes along with the message: it tells a database that went away (503)
    // from a bug (500) on the serving thread (core/dependency-failures.ts).
    const code = (error as { code?: unknown } | null)?.code;
    port.postMessage({
      id: message.id,
      error: error instanceof Error ? error.message : String(error),
      code: typeof code === "string" ? code : undefined,
    });
  }
});
