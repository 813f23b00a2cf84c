/**
 * Where recall's ranking runs. In process by default; the Node server ranks on worker threads
 * (platform/memory-search-threads.ts), each reading the database on its own connection, so a
 * query's ranking never holds the event loop that serves requests. Either way the same pipeline
 * (core/memory/recall.ts) runs over the same committed rows: the results are identical.
 */
import type { RecalledMemory, RecallRequest } from "../memory/recall.ts";

export interface MemorySearch {
  /** Best first; `null` only when `request.unlessLinksQueued` and the account had writes queued. */
  recall(accountId: string, request: RecallRequest): Promise<RecalledMemory[] | null>;
  close(): Promise<void>;
}
