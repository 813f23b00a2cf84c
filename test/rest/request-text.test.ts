/**
 * A request body is decoded a read at a time as it arrives (transports/rest/request-text.ts),
 * not joined and decoded at once: a character whose bytes arrive in two reads comes out whole,
 * the idempotency layer reads the same text, and a body that is not UTF-8 JSON is still refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../transports/rest/create-app.ts";
import { createAccountWithKey, createTestPlatform, type TestPlatform } from "../support/platforms.ts";

describe("request bodies read in pieces", () => {
  let test: TestPlatform;
  let app: ReturnType<typeof createApp>;
  let key: string;
  beforeAll(async () => {
    test = await createTestPlatform("sqlite");
    app = createApp(test.platform);
    ({ key } = await createAccountWithKey(test));
  });
  afterAll(() => test.close());

  /** POSTs `body` as a stream of the given byte pieces. */
  const post = (path: string, pieces: Uint8Array[], headers: Record<string, string> = {}) =>
    app.request(path, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", ...headers },
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          for (const piece of pieces) controller.enqueue(piece);
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);

  const content = "Café ☕ at 日本橋, 🚀 launch";

  it("keeps every character whose bytes arrive in two pieces", async () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ content, scope: "pieces" }));
    // Cut at every byte: each multi-byte character is split at each of its inner bytes once.
    for (let cut = 1; cut < bytes.length; cut++) {
      const response = await post("/v1/memory", [bytes.slice(0, cut), bytes.slice(cut)]);
      expect(response.status, await response.clone().text()).toBe(201);
      expect(((await response.json()) as { content: string }).content).toBe(content);
    }
  });

  it("gives the idempotency layer the same text as the operation", async () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ content: `${content} again`, scope: "pieces" }));
    const pieces = () => [bytes.slice(0, 7), bytes.slice(7, 9), bytes.slice(9)];
    const headers = { "Idempotency-Key": "pieces-1" };
    const first = await post("/v1/memory", pieces(), headers);
    const second = await post("/v1/memory", pieces(), headers);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(await second.json()).toEqual(await first.json());
    const changed = await post("/v1/memory", [new TextEncoder().encode('{"content":"other"}')], headers);
    expect(changed.status).toBe(422);
    expect(((await changed.json()) as { error: { code: string } }).error.code).toBe("idempotency_key_reuse");
  });

  it("refuses a body cut short of valid JSON", async () => {
    const response = await post("/v1/memory", [new TextEncoder().encode('{"content": "Caf')]);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("invalid_json");
  });
});
