/**
 * Semantic search end to end, as a client meets it: a Cairn server with
 * SVC_MEMORY_EMBEDDINGS_ENABLED=true and the real model server process, on SQLite and on
 * PostgreSQL. A memory and a question that share no content word find each other; an exact
 * keyword match stays first; metrics report the coverage and the model; with the model server
 * down, remember still answers and recall gives lexical results with a `warnings` field.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, startLiveServer } from "../mcp/mcp-harness.ts";
import {
  ensureModelServerEnvironment,
  type RunningModelServer,
  setupTimeout,
  startModelServer,
} from "../model-server/model-server-process.ts";
import { createTestDatabase, storageTargets } from "../support/platforms.ts";
import { signUpWithKey } from "../support/processes.ts";

type Recalled = { memories: Array<{ id: string; content: string; score: number }>; warnings?: string[] };

describe.each(storageTargets)("semantic search on %s", (target) => {
  let modelServer: RunningModelServer;
  let server: LiveServer;
  let database: { url: string; drop(): Promise<void> } | undefined;
  let key: string;

  const call = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };
  const remember = (content: string) =>
    call<{ id: string }>("/v1/memory", { method: "POST", body: JSON.stringify({ content }) });
  const recall = (query: string) =>
    call<Recalled>(`/v1/memory/search?q=${encodeURIComponent(query)}&limit=5`);
  const metrics = () =>
    call<{ total_memories: number; embedded_memories: number; embedding_model_id: string | null }>(
      "/v1/memory/metrics",
    );

  const forget = async (id: string) =>
    (
      await fetch(`${server.baseUrl}/v1/memory/${id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${key}` },
      })
    ).status;

  /** Waits (bounded by the test's timeout, polling) until every memory has its vector. */
  async function embedded(): Promise<void> {
    for (;;) {
      const figures = await metrics();
      if (figures.total_memories > 0 && figures.embedded_memories === figures.total_memories) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  beforeAll(async () => {
    ensureModelServerEnvironment();
    modelServer = await startModelServer();
    database = target === "postgresql" ? await createTestDatabase() : undefined;
    server = await startLiveServer({
      SVC_MEMORY_EMBEDDINGS_ENABLED: "true",
      SVC_MEMORY_EMBEDDING_BASE_URL: `${modelServer.url}/v1`,
      SVC_MEMORY_EMBEDDING_TIMEOUT_SECONDS: "5",
      ...(database ? { SVC_DATABASE_URL: database.url } : {}),
    });
    ({ key } = await signUpWithKey(server.baseUrl));
  }, setupTimeout);
  afterAll(async () => {
    await server?.close();
    await modelServer?.stop();
    await database?.drop();
  });

  it("finds a memory by meaning when no word is shared, and keeps an exact keyword match first", async () => {
    const allergy = await remember("I am allergic to peanuts.");
    await remember("The quarterly report is due on the first Monday of April.");
    await remember("Our staging cluster runs in the Frankfurt region.");
    const keyword = await remember("Kestrel is the codename of the billing rewrite.");
    await embedded();

    // "nuts", "make", "ill" appear in no memory: only the vectors can find it.
    const byMeaning = await recall("Which nuts make me ill?");
    expect(byMeaning.warnings).toBeUndefined();
    expect(byMeaning.memories[0]?.id).toBe(allergy.id);

    const exact = await recall("Kestrel");
    expect(exact.memories[0]?.id).toBe(keyword.id);
    expect(exact.memories[0]?.score).toBeLessThan(1);

    const figures = await metrics();
    expect(figures.embedded_memories).toBe(4);
    expect(figures.embedding_model_id).toBe("e5-small-v2");
  }, 120_000);

  it("embeds a turn again at once when the turn before it, its context, is forgotten", async () => {
    const session = crypto.randomUUID();
    const { memories: turns } = await call<{ memories: Array<{ id: string }> }>("/v1/memory/import", {
      method: "POST",
      body: JSON.stringify({
        memories: [
          {
            content: "Caroline: I went to a support group for new parents yesterday.",
            source_session_id: session,
          },
          { content: "Melanie: That sounds lovely. Did it help?", source_session_id: session },
        ],
      }),
    });
    await embedded();
    expect(await forget(turns[0].id)).toBe(204);
    // The second turn's vector went with the first (it held a trace of it); the forget wakes the
    // embedder for it, where a sweep would come only after 10 minutes.
    await embedded();
    // The next test counts this account's memories.
    expect(await forget(turns[1].id)).toBe(204);
  });

  it("embeds a turn again at once when a turn is imported before it in its session", async () => {
    const session = crypto.randomUUID();
    const turn = (content: string, minute: number) => ({
      content,
      source_session_id: session,
      created_at: new Date(Date.UTC(2026, 0, 1, 12, minute)).toISOString(),
    });
    const imported = (memories: unknown[]) =>
      call<{ memories: Array<{ id: string }> }>("/v1/memory/import", {
        method: "POST",
        body: JSON.stringify({ memories }),
      }).then((answer) => answer.memories.map((memory) => memory.id));
    const ids = await imported([
      turn("Caroline: I started pottery classes in May.", 1),
      turn("Melanie: Are you keeping the bowls or giving them away?", 3),
    ]);
    await embedded();
    ids.push(...(await imported([turn("Caroline: The first bowl cracked in the kiln.", 2)])));
    // The last turn's vector was made after the first; the import dropped it (its context is now
    // the turn imported before it: embeddings-storage.test.ts) and woke the embedder for it, where
    // a sweep would come only after 10 minutes.
    await embedded();
    // The next test counts this account's memories.
    for (const id of ids) expect(await forget(id)).toBe(204);
  });

  it("answers lexically with a warning while the model server is down, and remember does not wait for it", async () => {
    await modelServer.stop();
    const written = await remember("The office plants are watered on Fridays.");
    const down = await recall("office plants watered");
    expect(down.memories[0]?.id).toBe(written.id);
    expect(down.warnings).toEqual([expect.stringMatching(/^semantic search unavailable: unreachable/)]);
    expect((await metrics()).embedded_memories).toBe(4);
  }, 60_000);
});
