/**
 * Concurrent requests of one account over REST, fired together with Promise.all: overlapping
 * ingests, imports, remembers and searches never fail (PostgreSQL once deadlocked on them: a
 * 500), every identity ends up as one row, writes that supersede each other leave exactly one
 * current row, and racing forgets of one id delete it once. On SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import { createMemoryPlatform, type MemoryClient, newAccount } from "./memory-client.ts";

const sentences = Array.from(
  { length: 8 },
  (_, index) => `The service number ${index} listens on port ${8000 + index} today.`,
);

describe.each(storageTargets)("concurrent memory writes on %s", (target) => {
  let test: TestPlatform;
  let memory: MemoryClient;

  beforeAll(async () => {
    test = await createMemoryPlatform(target);
    memory = (await newAccount(test)).memory;
  });
  afterAll(() => test.close());

  const post = (path: string, json: unknown) => memory.send(path, { method: "POST", json });

  it("never fails on overlapping ingests, imports and remembers, and keeps one row per identity", async () => {
    const scope = "overlap";
    const orders = [sentences, [...sentences].reverse(), [...sentences.slice(4), ...sentences.slice(0, 4)]];
    const requests: Promise<Response>[] = [];
    for (let round = 0; round < 6; round++) {
      const order = orders[round % orders.length];
      requests.push(post("/v1/memory/ingest", { content: order.join("\n"), scope, kind: "fact" }));
      requests.push(
        post("/v1/memory/import", { memories: [...order].reverse().map((content) => ({ content, scope })) }),
      );
      requests.push(post("/v1/memory", { content: order[round], scope }));
      // Searches update the access counts of the rows the writes are updating.
      requests.push(memory.send(`/v1/memory/search${memory.query({ q: "service port", scope })}`));
      requests.push(
        memory.send(`/v1/memory/search${memory.query({ q: "listens today number", limit: 50 })}`),
      );
    }
    const responses = await Promise.all(requests);
    const failures = await Promise.all(
      responses
        .filter((response) => response.status >= 300)
        .map(async (response) => `${response.status} ${await response.text()}`),
    );
    expect(failures).toEqual([]);
    const rows = await memory.list({ scope, include_superseded: true, limit: 100 });
    for (const sentence of sentences) {
      expect(
        rows.filter((row) => row.content === sentence),
        sentence,
      ).toHaveLength(1);
    }
    expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
  });

  it("leaves exactly one current row when racing writes supersede each other", async () => {
    const scope = "race";
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        post("/v1/memory", {
          content: `My favorite port is now ${9000 + index}.`,
          scope,
          kind: "preference",
        }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(12).fill(201));
    const current = await memory.list({ scope });
    expect(current).toHaveLength(1);
    const all = await memory.list({ scope, include_superseded: true });
    expect(all).toHaveLength(12);
    const ids = new Set(all.map((row) => row.id));
    for (const row of all)
      if (row.id !== current[0].id) expect(ids.has(row.superseded_by_id as string)).toBe(true);
  });

  it("deletes a memory once when forgets race", async () => {
    const { id } = await memory.remember({ content: "Forget me exactly once.", scope: "forget-race" });
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => memory.send(`/v1/memory/${id}`, { method: "DELETE" })),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([204, ...Array(7).fill(404)]);
  });
});
