/**
 * An export is bounded per answer (issue 39: no account may stall the server for the others): an
 * account bigger than a page of about 4 MiB of JSON is exported in pages linked by `next_cursor`,
 * which together hold every memory and every relation exactly once, so nothing is lost; a relation
 * whose ends are on different pages is on its source's page, and a memory with more edges than a
 * page holds continues them on the next. Before pages, one answer carried the whole account. On
 * SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  decodeExportCursor,
  type ExportCursor,
  type ExportPage,
  encodeExportCursor,
  exportPage,
  exportPageCharacters,
} from "../../core/memory/export-page.ts";
import type { MemoryRecord, RelationRecord } from "../../core/ports/memory-store.ts";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import { seededRandom } from "../support/seeded-random.ts";
import { createMemoryPlatform, type ExportPayload, errorCode, newAccount } from "./memory-client.ts";

type Page = ExportPayload & { version: number; next_cursor: string | null };
type Account = Awaited<ReturnType<typeof newAccount>>;

/** Every page of the account's export, following `next_cursor`, with each answer's length. */
async function allPages(account: Account, scope?: string) {
  const pages: Array<{ page: Page; characters: number }> = [];
  let cursor: string | undefined;
  do {
    const response = await account.memory.send(`/v1/memory/export${account.memory.query({ scope, cursor })}`);
    const text = await response.text();
    expect(response.status, text.slice(0, 500)).toBe(200);
    const page = JSON.parse(text) as Page;
    pages.push({ page, characters: text.length });
    cursor = page.next_cursor ?? undefined;
    expect(pages.length).toBeLessThan(100);
  } while (cursor !== undefined);
  return pages;
}

const edgeKey = (edge: { source_memory_id: string; target_memory_id: string; relation_type: string }) =>
  `${edge.source_memory_id}>${edge.target_memory_id}:${edge.relation_type}`;

/** Text of `characters` made of words no other memory shares (relation detection finds nothing). */
function words(random: () => number, characters: number): string {
  let text = "";
  while (text.length < characters) text += `${Math.floor(random() * 36 ** 8).toString(36)} `;
  return text.slice(0, characters).trim();
}

describe.each(storageTargets)("memory export pages on %s", (target) => {
  let test: TestPlatform;
  beforeAll(async () => {
    test = await createMemoryPlatform(target);
  });
  afterAll(() => test.close());

  it("exports an account larger than a page in pages that hold every memory and relation once", async () => {
    const account = await newAccount(test);
    const random = seededRandom(39);
    // 70 memories of about 120,000 characters: about 8.4 million, two pages and a bit.
    const count = 70;
    const memories = Array.from({ length: count }, (_, index) => ({
      id: `m${index}`,
      content: `Export page memory ${index}: ${words(random, 60_000)}`,
      source_content: words(random, 60_000),
      scope: index % 2 === 0 ? "even" : "odd",
    }));
    // Edges to the next memory, to one 30 further (a later page) and back to one 40 earlier.
    const relations = memories.flatMap((_, index) => [
      ...(index + 1 < count ? [{ source: index, target: index + 1, type: "related" }] : []),
      ...(index + 30 < count ? [{ source: index, target: index + 30, type: "extends" }] : []),
      ...(index >= 40 ? [{ source: index, target: index - 40, type: "derives" }] : []),
    ]);
    const imported = await account.memory.import({
      memories,
      relations: relations.map((edge) => ({
        source_memory_id: `m${edge.source}`,
        target_memory_id: `m${edge.target}`,
        relation_type: edge.type,
        confidence: 0.7,
      })),
    });
    const ids = imported.memories.map((row) => row.id);
    expect(new Set(ids).size).toBe(count);

    const pages = await allPages(account);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    for (const { page, characters } of pages.slice(0, -1)) {
      expect(page.next_cursor).toEqual(expect.any(String));
      expect(page.version).toBe(1);
      // The page's items, and the few characters around them.
      expect(characters).toBeLessThanOrEqual(exportPageCharacters + 200);
    }
    const exported = pages.flatMap(({ page }) => page.memories);
    expect(exported.map((row) => row.id).sort()).toEqual([...ids].sort());
    const byId = new Map(exported.map((row) => [row.id, row]));
    for (const [index, id] of ids.entries()) {
      expect(byId.get(id)?.content).toBe(memories[index].content);
      expect(byId.get(id)?.source_content).toBe(memories[index].source_content);
    }
    const edges = pages.flatMap(({ page }) => page.relations).map(edgeKey);
    const expected = relations.map((edge) =>
      edgeKey({
        source_memory_id: ids[edge.source],
        target_memory_id: ids[edge.target],
        relation_type: edge.type,
      }),
    );
    expect(edges.sort()).toEqual(expected.sort());

    // A scoped export pages the same way, and keeps only the edges whose two ends are in scope.
    const even = await allPages(account, "even");
    expect(even.length).toBeGreaterThanOrEqual(2);
    const evenIds = even.flatMap(({ page }) => page.memories.map((row) => row.id));
    expect(evenIds.sort()).toEqual(ids.filter((_, index) => index % 2 === 0).sort());
    const evenEdges = even.flatMap(({ page }) => page.relations).map(edgeKey);
    expect(evenEdges.sort()).toEqual(
      relations
        .filter((edge) => edge.source % 2 === 0 && edge.target % 2 === 0)
        .map((edge) =>
          edgeKey({
            source_memory_id: ids[edge.source],
            target_memory_id: ids[edge.target],
            relation_type: edge.type,
          }),
        )
        .sort(),
    );
  }, 120_000);

  it("answers a small account in one page with next_cursor null", async () => {
    const account = await newAccount(test);
    await account.memory.remember({ content: "A small account fits in one page." });
    const [only, ...rest] = await allPages(account);
    expect(rest).toEqual([]);
    expect(Object.keys(only.page).sort()).toEqual(["memories", "next_cursor", "relations", "version"]);
    expect(only.page.memories.map((row) => row.content)).toEqual(["A small account fits in one page."]);
  });

  it("refuses a cursor it did not write with 422 validation_error naming cursor", async () => {
    const account = await newAccount(test);
    for (const cursor of ["not-a-cursor", "", btoa('{"c":"x","i":"y"}'), "e30", "x".repeat(513)]) {
      const response = await account.memory.send(`/v1/memory/export${account.memory.query({ cursor })}`);
      const text = await response.text();
      expect(response.status, `${cursor}: ${text}`).toBe(422);
      const body = JSON.parse(text) as { error: { code: string; details: Array<{ loc: string[] }> } };
      expect(body.error.code).toBe("validation_error");
      expect(body.error.details.map((issue) => issue.loc.at(-1))).toContain("cursor");
    }
    expect(await errorCode(await account.memory.send("/v1/memory/export?cursor=%00"), 422)).toBe(
      "validation_error",
    );
  });

  describe("the walk, with small pages", () => {
    // Plain shapes: what is measured and compared is the walk, not the wire.
    const shapes = {
      memory: (row: MemoryRecord) => ({ id: row.id, content: row.content }),
      relation: (edge: RelationRecord) => ({
        source_memory_id: edge.sourceMemoryId,
        target_memory_id: edge.targetMemoryId,
        relation_type: edge.relationType,
        confidence: edge.confidence,
      }),
    };

    async function walk(accountId: string, limits: { memories: number; characters: number }) {
      type Walked = ExportPage<ReturnType<typeof shapes.memory>, ReturnType<typeof shapes.relation>>;
      const pages: Walked[] = [];
      let cursor: ExportCursor | null = null;
      do {
        const page: Walked = await exportPage(
          test.platform.storage.memories,
          accountId,
          { scope: undefined, cursor, now: new Date(), limits },
          shapes,
        );
        pages.push(page);
        // Through the wire form, as a client sends it back.
        cursor = page.next && decodeExportCursor(encodeExportCursor(page.next));
        expect(pages.length).toBeLessThan(500);
      } while (cursor !== null);
      return pages;
    }

    it("continues a memory's edges over as many pages as they need, and loses none", async () => {
      const account = await newAccount(test);
      // A hub with an edge of every type to 499 others: 1,996 edges, more than a statement reads.
      const types = ["updates", "extends", "related", "derives"];
      await account.memory.import({
        memories: [
          { id: "hub", content: "The hub memory links to every other one." },
          ...Array.from({ length: 499 }, (_, index) => ({
            id: `s${index}`,
            content: `Spoke number ${index}.`,
          })),
        ],
        relations: Array.from({ length: 499 }, (_, index) =>
          types.map((type) => ({
            source_memory_id: "hub",
            target_memory_id: `s${index}`,
            relation_type: type,
          })),
        ).flat(),
      });
      await test.platform.memoryWriter.settle(account.accountId);
      const [whole, ...none] = await walk(account.accountId, { memories: 10_000, characters: 1 << 30 });
      expect(none).toEqual([]);
      expect(whole.memories).toHaveLength(500);
      expect(whole.relations.length).toBeGreaterThanOrEqual(1_996);

      const small = await walk(account.accountId, { memories: 10_000, characters: 20_000 });
      expect(small.length).toBeGreaterThan(10);
      // Pages made of the hub's edges alone: the walk went on within one memory's edges.
      expect(small.some((page) => page.memories.length === 0 && page.relations.length > 0)).toBe(true);
      expect(small.flatMap((page) => page.memories)).toEqual(whole.memories);
      expect(small.flatMap((page) => page.relations)).toEqual(whole.relations);
      for (const page of small) {
        const characters = [...page.memories, ...page.relations].reduce(
          (sum, item) => sum + JSON.stringify(item).length + 1,
          0,
        );
        expect(characters).toBeLessThanOrEqual(20_000);
      }

      const byCount = await walk(account.accountId, { memories: 7, characters: 1 << 30 });
      expect(byCount.map((page) => page.memories.length).slice(0, -1)).toEqual(
        Array(Math.ceil(500 / 7) - 1).fill(7),
      );
      expect(byCount.flatMap((page) => page.memories)).toEqual(whole.memories);
      expect(byCount.flatMap((page) => page.relations)).toEqual(whole.relations);
    }, 120_000);
  });
});
