/** Idempotency-Key on POST /mcp behaves as on REST: one effect, the first answer replayed. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountWithKey, createTestPlatform, type TestPlatform } from "../support/platforms.ts";

describe("Idempotency-Key on /mcp", () => {
  let test: TestPlatform;
  let key: string;
  beforeAll(async () => {
    test = await createTestPlatform("sqlite");
    key = (await createAccountWithKey(test)).key;
  });
  afterAll(() => test.close());

  const remember = (content: string, idempotencyKey: string) =>
    test.request("/mcp", {
      method: "POST",
      credential: key,
      headers: { accept: "application/json, text/event-stream", "Idempotency-Key": idempotencyKey },
      json: {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "remember", arguments: { content } },
      },
    });

  it("replays the first answer for the same key and body, and refuses the key with another body", async () => {
    const first = await remember("Ship on Fridays only after the canary.", "mcp-key-1");
    const again = await remember("Ship on Fridays only after the canary.", "mcp-key-1");
    const firstBody = await first.text();
    expect(first.status).toBe(200);
    expect(await again.text()).toBe(firstBody);
    // The replay ran nothing: one token left the memory_ops bucket, not two.
    const next = await test.request("/v1/memory", {
      method: "POST",
      credential: key,
      json: { content: "Next." },
    });
    expect(next.headers.get("X-RateLimit-Remaining")).toBe("118");
    const reused = await remember("Something else entirely.", "mcp-key-1");
    expect(reused.status).toBe(422);
    // Refused at /mcp's door as JSON-RPC, the REST error body as its data.
    expect(await reused.json()).toMatchObject({
      jsonrpc: "2.0",
      error: { code: -32000, data: { code: "idempotency_key_reuse" } },
    });
  });
});
