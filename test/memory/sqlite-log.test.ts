/**
 * SQLite's write-ahead log stays bounded under steady writes (plugins/storage/sqlite-checkpoints.ts):
 * two clients import batch after batch into the real Node server, so the writer never rests, and
 * once they stop the log is emptied. Before, it was only copied: it grew with every batch (2.5 GB
 * over 100,000 memories) and stayed that size on disk.
 */
import { statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { walBytes } from "../../plugins/storage/sqlite-checkpoints.ts";
import { createCorpus } from "../bench/memory-corpus.ts";
import { eventually } from "../support/local-sandbox-runtime.ts";
import { type RunningServer, signUpWithKey, startServer } from "../support/processes.ts";

const entry = join(import.meta.dirname, "../../platform/serve.ts");

describe("SQLite's write-ahead log", () => {
  let dataDir: string;
  let server: RunningServer | undefined;

  afterEach(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("is emptied after a burst of imports that never let the writer rest", { timeout: 120_000 }, async () => {
    dataDir = await mkdtemp(join(tmpdir(), "cairn-wal-"));
    server = await startServer(process.execPath, [entry], {
      SVC_DATA_DIR: dataDir,
      SVC_LOG_LEVEL: "warn",
      SVC_MEMORY_RATE_LIMIT_PER_MINUTE: "100000",
    });
    const { baseUrl } = server;
    const { key } = await signUpWithKey(baseUrl);
    const log = join(dataDir, "cairn.db-wal");
    const size = () => statSync(log, { throwIfNoEntry: false })?.size ?? 0;
    const corpus = createCorpus(7);
    const batches = Array.from({ length: 40 }, () => Array.from({ length: 500 }, () => corpus.memory()));
    let next = 0;
    const written: string[] = [];
    await Promise.all(
      [0, 1].map(async () => {
        while (next < batches.length) {
          const response = await fetch(`${baseUrl}/v1/memory/import`, {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: JSON.stringify({ memories: batches[next++] }),
          });
          expect(response.status).toBe(201);
          const { memories } = (await response.json()) as { memories: Array<{ id: string }> };
          written.push(...memories.map((memory) => memory.id));
        }
      }),
    );
    // 20,000 memories and their postings: far more than the threshold went through the log.
    expect(await eventually(async () => size() < walBytes, 10)).toBe(true);
    // The rows are there, read through the emptied log: every 100th of them.
    expect(written.length).toBe(20_000);
    for (const id of written.filter((_, index) => index % 100 === 0)) {
      const response = await fetch(`${baseUrl}/v1/memory/${id}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { id: string }).id).toBe(id);
    }
  });
});
