/**
 * The client against Cairn's real model server (plugins/model-server, started as a process by the
 * model server's own test helpers): the selection rule's default destination answers, the vectors
 * are the model's (a paraphrase is closer than an unrelated sentence), `dimensions` and the API key
 * travel as the server expects, and the server's refusals arrive as typed failures.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../core/index.ts";
import { EmbeddingFailure, type EmbeddingProvider } from "../../core/ports/embeddings.ts";
import {
  ensureModelServerEnvironment,
  type RunningModelServer,
  setupTimeout,
  startModelServer,
} from "../../test/model-server/model-server-process.ts";
import { createEmbeddingProvider } from "./create-embedding-provider.ts";
import { createOpenAiCompatibleEmbeddings } from "./create-openai-compatible-embeddings.ts";
import { resolveEmbeddingSettings } from "./embedding-settings.ts";

const apiKey = "model-server-test-key";
let server: RunningModelServer;
beforeAll(async () => {
  ensureModelServerEnvironment();
  server = await startModelServer({
    environment: { SVC_MODEL_API_KEY: apiKey, SVC_MODEL_MAX_BATCH_SIZE: "2" },
  });
}, setupTimeout);
afterAll(() => server?.stop());

const providerFor = (environment: Record<string, string> = {}): EmbeddingProvider => {
  const provider = createEmbeddingProvider(
    loadConfig({
      SVC_MEMORY_EMBEDDINGS_ENABLED: "true",
      SVC_MEMORY_EMBEDDING_BASE_URL: `${server.url}/v1`,
      SVC_MEMORY_EMBEDDING_API_KEY: apiKey,
      SVC_MEMORY_EMBEDDING_TIMEOUT_SECONDS: "120",
      ...environment,
    }),
  );
  if (provider === null) throw new Error("embeddings are on, so a provider is expected");
  return provider;
};

const dot = (left: Float32Array, right: Float32Array): number =>
  left.reduce((total, value, position) => total + value * right[position], 0);

describe("the client and Cairn's model server", () => {
  it("gets the model's unit vectors in order, named after the served model", async () => {
    const provider = providerFor();
    expect(provider.destination).toBe("model_server");
    const result = await provider.embed([
      "A man is playing a guitar.",
      "Someone is strumming a guitar.",
      "The central bank raised interest rates again.",
    ]);
    expect(result.modelId).toBe("e5-small-v2");
    expect(result.dimensions).toBe(384);
    for (const vector of result.vectors) expect(Math.sqrt(dot(vector, vector))).toBeCloseTo(1, 5);
    const [guitar, strumming, bank] = result.vectors;
    expect(dot(guitar, strumming)).toBeGreaterThan(dot(guitar, bank) + 0.3);
  });

  it("asks for fewer dimensions and gets them, batch after batch", async () => {
    const settings = resolveEmbeddingSettings(
      loadConfig({
        SVC_MEMORY_EMBEDDINGS_ENABLED: "true",
        SVC_MEMORY_EMBEDDING_BASE_URL: `${server.url}/v1`,
        SVC_MEMORY_EMBEDDING_API_KEY: apiKey,
        SVC_MEMORY_EMBEDDING_MODEL: "e5-small-v2",
        SVC_MEMORY_EMBEDDING_DIMENSIONS: "128",
        SVC_MEMORY_EMBEDDING_TIMEOUT_SECONDS: "120",
      }),
    );
    if (settings === null) throw new Error("embeddings are on, so settings are expected");
    const texts = ["one fact", "another fact", "a third fact", "a fourth", "the fifth"];
    const batched = await createOpenAiCompatibleEmbeddings({ ...settings, maxBatchSize: 2 }).embed(texts);
    const whole = await createOpenAiCompatibleEmbeddings(settings).embed(texts);
    expect(batched.dimensions).toBe(128);
    expect(batched.vectors.map((vector) => vector.length)).toEqual([128, 128, 128, 128, 128]);
    batched.vectors.forEach((vector, index) => {
      expect(dot(vector, whole.vectors[index])).toBeCloseTo(1, 4);
    });
    // A search query gets the model's query prompt: another vector than the same text as a memory.
    const client = createOpenAiCompatibleEmbeddings(settings);
    const [asQuery] = (await client.embed(["one fact"], undefined, "query")).vectors;
    expect(dot(asQuery as Float32Array, whole.vectors[0] as Float32Array)).toBeLessThan(0.99);
  });

  it("turns the server's refusals into typed failures", async () => {
    const wrongKey = await providerFor({ SVC_MEMORY_EMBEDDING_API_KEY: "not-the-key" })
      .embed(["a fact"])
      .catch((error: unknown) => error);
    expect(wrongKey).toBeInstanceOf(EmbeddingFailure);
    expect((wrongKey as EmbeddingFailure).message).toBe(
      "the embedding model server answered 401: unauthorized",
    );
    const otherModel = await providerFor({ SVC_MEMORY_EMBEDDING_MODEL: "text-embedding-3-small" })
      .embed(["a fact"])
      .catch((error: unknown) => error);
    expect(otherModel).toMatchObject({ kind: "rejected", status: 400, retryable: false });
    expect((otherModel as EmbeddingFailure).message).toContain("model_not_found");
  });
});
