/**
 * Input that once broke a store: deeply nested metadata (a stack overflow), U+0000 (PostgreSQL
 * cannot hold it), unpaired surrogates (PostgreSQL's jsonb refuses them), impossible or very old
 * calendar dates (rolled over, or read back from PostgreSQL as another year). Each is either a
 * 422 or stored the same way on both stores, never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import { createMemoryPlatform, errorCode, type MemoryClient, newAccount } from "./memory-client.ts";

describe.each(storageTargets)("hostile memory input on %s", (target) => {
  let test: TestPlatform;
  let memory: MemoryClient;

  beforeAll(async () => {
    test = await createMemoryPlatform(target);
    memory = (await newAccount(test)).memory;
  });
  afterAll(() => test.close());

  const rejects = async (path: string, json: unknown) =>
    expect(await errorCode(await memory.send(path, { method: "POST", json }), 422)).toBe("validation_error");

  it("refuses metadata nested past 64 levels with a 422, not a stack overflow", async () => {
    const nested = (levels: number) => JSON.parse(`${"[".repeat(levels)}${"]".repeat(levels)}`);
    // The metadata object is level 1; its value adds the rest.
    const deepest = await memory.remember({ content: "Deep metadata.", metadata: { a: nested(63) } });
    expect(JSON.stringify(deepest.metadata)).toBe(`{"a":${"[".repeat(63)}${"]".repeat(63)}}`);
    for (const levels of [64, 5000, 100_000]) {
      const body = `{"content":"Too deep.","metadata":{"a":${"[".repeat(levels)}${"]".repeat(levels)}}}`;
      for (const path of ["/v1/memory", "/v1/memory/ingest"]) {
        const response = await memory.send(path, {
          method: "POST",
          body,
          headers: { "content-type": "application/json" },
        });
        expect(await errorCode(response, 422)).toBe("validation_error");
      }
    }
    await rejects("/v1/memory/import", { memories: [{ content: "Too deep.", metadata: { a: nested(64) } }] });
  });

  it("refuses U+0000 anywhere in metadata but keeps a literal backslash-u0000", async () => {
    await rejects("/v1/memory", { content: "Nul in a value.", metadata: { a: [{ b: "x\u0000y" }] } });
    await rejects("/v1/memory", { content: "Nul in a key.", metadata: { a: { "k\u0000": 1 } } });
    const literal = await memory.remember({
      content: "Escapes stay text.",
      metadata: { pattern: "\\u0000" },
    });
    expect(literal.metadata).toEqual({ pattern: "\\u0000" });
  });

  it("stores every accepted date-time exactly as the instant it names", async () => {
    const accepted = [
      ["2024-02-29", "2024-02-29T00:00:00.000Z"],
      ["1000-01-01", "1000-01-01T00:00:00.000Z"],
      ["9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"],
      ["2024-03-05T10:00", "2024-03-05T10:00:00.000Z"],
      ["2024-03-05 10:00:00", "2024-03-05T10:00:00.000Z"],
      ["2024-03-05T10:00:00+05:30", "2024-03-05T04:30:00.000Z"],
      ["1969-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999Z"],
    ];
    for (const [value, instant] of accepted) {
      const created = await memory.remember({ content: `Dated ${value}.`, document_date: value });
      expect(created.document_date, value).toBe(instant);
      expect((await memory.get(created.id)).document_date, value).toBe(instant);
    }
  });

  it("stores an unpaired surrogate as U+FFFD in every field alike", async () => {
    // PostgreSQL's jsonb once refused the `\ud800` escape in metadata and event dates: a 500.
    const created = await memory.remember({
      content: "Lone \ud800 surrogate.",
      metadata: { "key\udc00": ["x\ud800y", { deep: "\udfff" }], pair: "😀" },
      event_dates: ["\ud800-date"],
    });
    expect(created).toMatchObject({
      content: "Lone \ufffd surrogate.",
      metadata: { "key\ufffd": ["x\ufffdy", { deep: "\ufffd" }], pair: "😀" },
      event_dates: ["\ufffd-date"],
    });
    expect(await memory.get(created.id)).toEqual(created);
  });
});
