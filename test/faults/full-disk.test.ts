/**
 * A full data disk under SQLite: the data directory is a small tmpfs of the test's own, filled up
 * to its last byte while the server runs. Every write then either succeeds (and is there after a
 * restart) or is refused whole with 503 `storage_error` and Retry-After in the error envelope;
 * reads keep working; once space is freed writes succeed again without a restart; and SQLite's
 * `integrity_check` finds nothing wrong.
 */
import { execFile } from "node:child_process";
import { mkdtemp, open, rm, rmdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, signUpWithKey, startServer } from "../support/processes.ts";

const run = promisify(execFile);
const entry = join(import.meta.dirname, "../../platform/serve.ts");

/** Writes zeros into `path` until the file system refuses (ENOSPC); returns the bytes written. */
async function fillUp(path: string): Promise<number> {
  const file = await open(path, "w");
  const chunk = Buffer.alloc(64 * 1024);
  let written = 0;
  try {
    for (;;) {
      try {
        written += (await file.write(chunk, 0, chunk.length)).bytesWritten;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
        // The last partial block: smaller writes until not even one byte fits.
        for (let size = chunk.length / 2; size >= 1; size = Math.floor(size / 2)) {
          try {
            for (;;) written += (await file.write(chunk, 0, size)).bytesWritten;
          } catch (inner) {
            if ((inner as NodeJS.ErrnoException).code !== "ENOSPC") throw inner;
          }
        }
        return written;
      }
    }
  } finally {
    await file.close().catch(() => {});
  }
}

describe("a full data disk on SQLite", () => {
  let mountPoint: string;
  let server: RunningServer | undefined;
  let key: string;

  beforeAll(async () => {
    mountPoint = await mkdtemp(join(tmpdir(), "cairn-full-disk-"));
    // A file system of the test's own, so filling it touches nothing else (the test runs as root).
    await run("mount", ["-t", "tmpfs", "-o", "size=24m,mode=0700", "tmpfs", mountPoint]);
  });
  afterAll(async () => {
    await server?.stop();
    await run("umount", [mountPoint]).catch(() => {});
    await rmdir(mountPoint).catch(() => {});
  });

  const environment = () => ({ SVC_DATA_DIR: join(mountPoint, "data"), SVC_LOG_LEVEL: "error" });

  async function remember(content: string) {
    const response = await fetch(`${server?.baseUrl}/v1/memory`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ content }),
    });
    return {
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      body: (await response.json()) as { id?: string; error?: Record<string, unknown> },
    };
  }

  it("refuses writes with 503 storage_error, keeps every acknowledged one, and writes again once space is freed", async () => {
    server = await startServer(process.execPath, [entry], environment());
    key = (await signUpWithKey(server.baseUrl)).key;
    const acknowledged: string[] = [];
    const first = await remember("The archive server lives in rack 12.");
    expect(first.status).toBe(201);
    acknowledged.push(first.body.id as string);

    const filler = join(mountPoint, "filler");
    expect(await fillUp(filler)).toBeGreaterThan(0);

    // SQLite may still place a few writes in space it already holds (its log, free pages):
    // writes go on until the first refusal, and each one is either stored or refused whole.
    const padding = "x".repeat(8 * 1024);
    let refusal: Awaited<ReturnType<typeof remember>> | undefined;
    for (let index = 0; index < 2_000 && !refusal; index++) {
      const answer = await remember(`Full disk note ${index} ${padding}`);
      if (answer.status === 201) acknowledged.push(answer.body.id as string);
      else refusal = answer;
    }
    expect(refusal).toMatchObject({
      status: 503,
      retryAfter: expect.stringMatching(/^[1-9]\d*$/),
      body: {
        error: {
          code: "storage_error",
          message: expect.any(String),
          retryable: true,
          remediation: expect.any(String),
        },
      },
    });
    // The refusal is stable, and reads still answer.
    expect((await remember("Another note on the full disk.")).body.error?.code).toBe("storage_error");
    const listed = await fetch(`${server.baseUrl}/v1/memory?limit=1`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(listed.status).toBe(200);

    // Space comes back: the same process writes again.
    await rm(filler);
    const after = await remember("The backup server lives in rack 14.");
    expect(after.status).toBe(201);
    acknowledged.push(after.body.id as string);

    await server.stop();
    server = undefined;
    const database = new Database(join(mountPoint, "data", "cairn.db"), { readonly: true });
    try {
      expect(database.pragma("integrity_check", { simple: true })).toBe("ok");
      const stored = database.prepare("select id from memories").all() as Array<{ id: string }>;
      expect(new Set(stored.map((row) => row.id))).toEqual(new Set(acknowledged));
    } finally {
      database.close();
    }

    // And a restart on the same disk serves them.
    server = await startServer(process.execPath, [entry], environment());
    const found = await fetch(`${server.baseUrl}/v1/memory/${after.body.id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(found.status).toBe(200);
  });
});
