/**
 * The model server as a real process (uvicorn + ONNX Runtime + the default model on this CPU),
 * loading lazily, with batches of two: real embeddings, a query's prompt, health and readiness before and after the
 * first request, OpenAI's response shape, batching, `dimensions`, and the 400 refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cosine,
  embed,
  ensureModelServerEnvironment,
  type RunningModelServer,
  setupTimeout,
  startModelServer,
} from "./model-server-process.ts";

beforeAll(() => ensureModelServerEnvironment(), setupTimeout);

describe("lazy loading, batches of two", () => {
  let server: RunningModelServer;
  beforeAll(async () => {
    server = await startModelServer({ environment: { SVC_MODEL_MAX_BATCH_SIZE: "2" } });
  });
  afterAll(() => server?.stop());

  it("reports the CPU and no model before the first request, and is not ready", async () => {
    const health = await (await fetch(`${server.url}/health`)).json();
    expect(health).toMatchObject({ status: "ok", embedding_loaded: false, device: "cpu" });
    expect((await fetch(`${server.url}/health/ready`)).status).toBe(503);
  });

  it("serves real embeddings: a paraphrase is closer than an unrelated sentence", async () => {
    const { response, body } = await embed(server, {
      model: "e5-small-v2",
      input: [
        "A man is playing a guitar.",
        "Someone is strumming a guitar.",
        "The central bank raised interest rates again.",
      ],
    });
    expect(response.status).toBe(200);
    const [guitar, paraphrase, unrelated] = body.data.map((item) => item.embedding);
    expect(cosine(guitar, paraphrase)).toBeGreaterThan(0.6);
    expect(cosine(guitar, unrelated)).toBeLessThan(0.2);
  });

  it("embeds a search query with the query prompt when asked, and refuses an unknown input type", async () => {
    const texts = ["Who plays the guitar?", "A man is playing a guitar."];
    const asDocuments = (await embed(server, { input: texts })).body.data.map((item) => item.embedding);
    const query = await embed(server, { input: texts[0], input_type: "query" });
    expect(query.response.status).toBe(200);
    const [asQuery] = query.body.data.map((item) => item.embedding);
    expect(cosine(asQuery, asDocuments[0])).toBeLessThan(0.99);
    expect(cosine(asQuery, asDocuments[1])).toBeGreaterThan(0.4);
    const refused = await fetch(`${server.url}/v1/embeddings`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "x", input_type: "passage" }),
    });
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.code).toBe("invalid_input");
  });

  it("is loaded and ready after the first request", async () => {
    const health = await (await fetch(`${server.url}/health`)).json();
    expect(health).toMatchObject({ embedding_loaded: true, device: "cpu", dimensions: 384 });
    expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);
  });

  it("answers in OpenAI's shape exactly, with unit vectors of the native width", async () => {
    const { response, body } = await embed(server, { input: "one string is one item" });
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(Object.keys(body).sort()).toEqual(["data", "model", "object", "usage"]);
    expect(body.object).toBe("list");
    expect(body.model).toBe("e5-small-v2");
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens);
    expect(body.data).toHaveLength(1);
    const [item] = body.data;
    expect(Object.keys(item).sort()).toEqual(["embedding", "index", "object"]);
    expect(item).toMatchObject({ object: "embedding", index: 0 });
    expect(item.embedding).toHaveLength(384);
    expect(Math.hypot(...item.embedding)).toBeCloseTo(1, 5);
  });

  it("runs the default model one text at a time and keeps index order", async () => {
    // e5-small-v2's int8 weights take their activation scales over a whole run, so it runs one
    // text at a time (embedder.py; batching itself is planned in test_requests.py and kept by
    // all-MiniLM-L6-v2 in test_prompts_and_centring.py): five runs for five texts.
    const texts = [
      "the birds fly south across the sea",
      "rice is cooked slowly in a pot",
      "the fifth input of this request here",
      "a tiny sentence about cats",
      "the team meets on thursday mornings",
    ];
    const { response, body } = await embed(server, { input: texts });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-model-batches")).toBe("5");
    expect(body.data.map((item) => item.index)).toEqual([0, 1, 2, 3, 4]);
    for (const [position, text] of texts.entries()) {
      const alone = (await embed(server, { input: text })).body.data[0].embedding;
      expect(cosine(body.data[position].embedding, alone)).toBeGreaterThan(0.9999);
    }
  });

  it("sends the same vector as little-endian float32 in base64 when asked", async () => {
    const text = "a note about base64";
    const floats = (await embed(server, { input: text })).body.data[0].embedding;
    const { body } = await embed(server, { input: text, encoding_format: "base64" });
    const bytes = Buffer.from(body.data[0].embedding as unknown as string, "base64");
    const decoded = Array.from({ length: bytes.length / 4 }, (_, index) => bytes.readFloatLE(index * 4));
    expect(decoded).toHaveLength(384);
    for (const [position, value] of decoded.entries()) expect(value).toBeCloseTo(floats[position], 6);
  });

  it("truncates and renormalises to smaller dimensions and refuses larger ones", async () => {
    const text = "memories of a summer by the lake";
    const native = (await embed(server, { input: text })).body.data[0].embedding;
    const { response, body } = await embed(server, { input: text, dimensions: 64 });
    expect(response.status).toBe(200);
    const small = body.data[0].embedding;
    expect(small).toHaveLength(64);
    expect(Math.hypot(...small)).toBeCloseTo(1, 5);
    expect(cosine(small, native.slice(0, 64))).toBeGreaterThan(0.9999);
    const larger = await embed(server, { input: text, dimensions: 385 });
    expect(larger.response.status).toBe(400);
    expect(larger.body.error?.code).toBe("invalid_dimensions");
  });

  it.each([
    ["an empty list", { input: [] }, "invalid_input"],
    ["a non-string item", { input: ["fine", 42] }, "invalid_input"],
    ["an empty string", { input: [""] }, "invalid_input"],
    ["no input", { model: "e5-small-v2" }, "invalid_input"],
    ["an input over 8192 characters", { input: ["x".repeat(8193)] }, "input_too_long"],
    ["more than 2048 inputs", { input: Array(2049).fill("a") }, "too_many_inputs"],
    ["another model", { input: "hi", model: "text-embedding-3-small" }, "model_not_found"],
    ["a zero width", { input: "hi", dimensions: 0 }, "invalid_input"],
    ["a body that is not JSON", "{not json", "invalid_json"],
  ])("refuses %s with 400", async (_name, requestBody, code) => {
    const { response, body } = await embed(server, requestBody);
    expect(response.status).toBe(400);
    expect(body.error).toMatchObject({ code, type: "invalid_request_error" });
  });
});
