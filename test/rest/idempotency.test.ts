/** Idempotency-Key on POST (docs/api.md#idempotency-keys), on both databases. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAccountWithKey,
  createTestPlatform,
  storageTargets,
  type TestPlatform,
} from "../support/platforms.ts";

describe.each(storageTargets)("Idempotency-Key on %s", (target) => {
  let test: TestPlatform;
  let key: string;
  let otherKey: string;
  beforeAll(async () => {
    test = await createTestPlatform(target);
    key = (await createAccountWithKey(test)).key;
    otherKey = (await createAccountWithKey(test)).key;
  });
  afterAll(() => test.close());

  const remember = (content: string, idempotencyKey: string, credential = key) =>
    test.request("/v1/memory", {
      method: "POST",
      credential,
      headers: { "Idempotency-Key": idempotencyKey },
      json: { content },
    });

  /** A remember whose body is sent as written, not serialised by the helper. */
  const rememberText = (body: string, idempotencyKey: string) =>
    test.request("/v1/memory", {
      method: "POST",
      credential: key,
      headers: { "Idempotency-Key": idempotencyKey, "content-type": "application/json" },
      body,
    });

  it("replays the first response verbatim and runs the operation once", async () => {
    const first = await remember("Idempotent memory about teapots.", "key-1");
    expect(first.status).toBe(201);
    const firstBody = await first.text();
    const second = await remember("Idempotent memory about teapots.", "key-1");
    expect(second.status).toBe(201);
    expect(await second.text()).toBe(firstBody);
    expect(second.headers.get("content-type")).toContain("application/json");
    // A replay does not touch the rate limit or the store: the row was written once.
    const list = (await (await test.request("/v1/memory", { credential: key })).json()) as unknown[];
    expect(list).toHaveLength(1);
  });

  it("refuses the same key with a different body with 422 idempotency_key_reuse", async () => {
    await remember("First body for key-2.", "key-2");
    const reused = await remember("Another body for key-2.", "key-2");
    expect(reused.status).toBe(422);
    expect(((await reused.json()) as { error: { code: string } }).error.code).toBe("idempotency_key_reuse");
  });

  it("takes the same JSON written another way (key order, spaces) as the same body and replays it", async () => {
    const send = (body: string) => rememberText(body, "key-json");
    const first = await send('{"content":"Re-serialised on a retry.","scope":"idem"}');
    expect(first.status).toBe(201);
    const again = await send('{ "scope": "idem",\n  "content": "Re-serialised on a retry." }');
    expect([again.status, await again.text()]).toEqual([201, await first.text()]);
    const changed = await send('{"scope":"idem","content":"Re-serialised on a retry!"}');
    expect(changed.status).toBe(422);
  });

  it("takes a large body written another way as the same, though it is parsed and hashed in pieces", async () => {
    // Pieces are 64 Ki characters: the content's emoji (two UTF-16 units) straddle their edges,
    // and an object of 3,000 keys is sorted in runs.
    const content = `${"🚀 ab".repeat(16_000)} end`;
    const extra = Object.fromEntries(Array.from({ length: 3_000 }, (_, index) => [`k${index}`, index]));
    const reversed = Object.fromEntries(Object.entries(extra).reverse());
    const send = (body: string) => rememberText(body, "key-large");
    const first = await send(JSON.stringify({ content, scope: "idem-large", extra }));
    expect(first.status).toBe(201);
    const again = await send(JSON.stringify({ extra: reversed, scope: "idem-large", content }, null, 2));
    expect([again.status, await again.text()]).toEqual([201, await first.text()]);
    const changed = await send(JSON.stringify({ content: `${content}!`, scope: "idem-large", extra }));
    expect(changed.status).toBe(422);
    const otherExtra = await send(
      JSON.stringify({ content, scope: "idem-large", extra: { ...extra, k2999: 0 } }),
    );
    expect(otherExtra.status).toBe(422);
  });

  it("keeps keys apart per credential and per path", async () => {
    const mine = await remember("Scoped per caller.", "shared-key");
    const theirs = await remember("Scoped per caller, other account.", "shared-key", otherKey);
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(((await theirs.json()) as { content: string }).content).toBe("Scoped per caller, other account.");
  });

  it("does not keep 5xx responses, so a retry runs again", async () => {
    const original = test.platform.storage.memories.transaction;
    test.platform.storage.memories.transaction = async () => {
      throw new Error("storage hiccup");
    };
    try {
      expect((await remember("Retry after a failure.", "key-3")).status).toBe(500);
    } finally {
      test.platform.storage.memories.transaction = original;
    }
    expect((await remember("Retry after a failure.", "key-3")).status).toBe(201);
  });

  it("also replays errors below 500", async () => {
    const first = await test.request("/v1/memory", {
      method: "POST",
      credential: key,
      headers: { "Idempotency-Key": "key-4" },
      json: { content: "" },
    });
    expect(first.status).toBe(422);
    const again = await test.request("/v1/memory", {
      method: "POST",
      credential: key,
      headers: { "Idempotency-Key": "key-4" },
      json: { content: "" },
    });
    expect(again.status).toBe(422);
    expect(await again.text()).toBe(await first.text());
  });
});
