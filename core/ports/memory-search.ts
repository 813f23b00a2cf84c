/**
 * Where recall's ranking runs. In process by default; the Node server ranks on worker threads
 * (platform/memory-search-threads.ts), each reading the database on its own connection, so a
 * query's ranking never holds the event loop that serves requests. Either way the same pipeline
 * (core/memory/recall.ts) runs over the same committed rows: the results are identical.
 */
import type { RecalledMemory, RecallRequest } from "../memory/recall.ts";

export interface MemorySearch {
  recall(accountId: string, request: RecallRequest): Promise<RecalledMemory[]>;
  close(): Promise<void>;
}
