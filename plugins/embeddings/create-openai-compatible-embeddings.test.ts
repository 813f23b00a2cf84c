/**
 * The OpenAI-compatible client against a real local HTTP server: what it sends, how it batches,
 * orders and normalises, and how every way an answer can go wrong becomes a typed EmbeddingFailure.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EmbeddingFailure } from "../../core/ports/embeddings.ts";
import {
  type EmbeddingsRequestBody,
  type FakeEmbeddingsServer,
  openAiAnswer,
  rawVector,
  startFakeEmbeddingsServer,
} from "../../test/doubles/fake-embeddings-server.ts";
import { freePort } from "../../test/support/processes.ts";
import {
  createOpenAiCompatibleEmbeddings,
  type OpenAiCompatibleEmbeddingsSettings,
} from "./create-openai-compatible-embeddings.ts";

let server: FakeEmbeddingsServer;
beforeEach(async () => {
  server = await startFakeEmbeddingsServer();
});
afterEach(async () => {
  await server.close();
});

const client = (overrides: Partial<OpenAiCompatibleEmbeddingsSettings> = {}) =>
  createOpenAiCompatibleEmbeddings({
    destination: "model_server",
    baseUrl: server.url,
    apiKey: null,
    model: null,
    dimensions: null,
    timeoutSeconds: 10,
    ...overrides,
  });

/** The failure a call rejects with; fails the test when it resolves or throws anything else. */
async function failureOf(call: Promise<unknown>): Promise<EmbeddingFailure> {
  const outcome = await call.then(
    () => null,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(EmbeddingFailure);
  return outcome as EmbeddingFailure;
}

const unit = (values: number[]): number[] => {
  const length = Math.hypot(...values);
  return values.map((value) => value / length);
};

describe("OpenAI-compatible embeddings client", () => {
  it("posts {model, input, dimensions} to {base}/embeddings with the Bearer key", async () => {
    const result = await client({ apiKey: "sk-local", model: "all-MiniLM-L6-v2", dimensions: 6 }).embed([
      "first text",
      "second text",
    ]);
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/v1/embeddings");
    expect(request.headers.authorization).toBe("Bearer sk-local");
    expect(request.headers["content-type"]).toBe("application/json");
    // The answer is read as it comes: nothing here decompresses one.
    expect(request.headers["accept-encoding"]).toBe("identity");
    expect(request.body).toEqual({
      model: "all-MiniLM-L6-v2",
      input: ["first text", "second text"],
      dimensions: 6,
      input_type: "document",
    });
    expect(result.modelId).toBe("all-MiniLM-L6-v2");
    expect(result.dimensions).toBe(6);
  });

  it("tells the model server a search query from a document, and a managed provider neither", async () => {
    await client().embed(["who is the CEO?"], undefined, "query");
    await client({ destination: "managed_provider" }).embed(["who is the CEO?"], undefined, "query");
    expect(server.requests.map((request) => request.body)).toEqual([
      { input: ["who is the CEO?"], input_type: "query" },
      { input: ["who is the CEO?"] },
    ]);
  });

  it("sends no key, model or dimensions when none are set, and takes the model name from the answer", async () => {
    const result = await client().embed(["only text"]);
    expect(server.requests[0].headers.authorization).toBeUndefined();
    expect(server.requests[0].body).toEqual({ input: ["only text"], input_type: "document" });
    expect(result.modelId).toBe("recorded-model");
    expect(result.dimensions).toBe(4);
  });

  it("returns unit vectors in input order although the answer lists them in reverse", async () => {
    const texts = ["alpha", "a much longer second text", "third"];
    const { vectors } = await client().embed(texts);
    expect(vectors).toHaveLength(3);
    vectors.forEach((vector, index) => {
      expect(vector).toBeInstanceOf(Float32Array);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 6);
      const expected = unit(rawVector(texts[index]));
      for (const [position, value] of vector.entries()) expect(value).toBeCloseTo(expected[position], 6);
    });
  });

  it("splits a long list into batches of maxBatchSize, sent in order, and joins the vectors", async () => {
    const texts = ["one", "two two", "three three three", "four", "five five"];
    const { vectors } = await client({ maxBatchSize: 2 }).embed(texts);
    expect(server.requests.map((request) => (request.body as EmbeddingsRequestBody).input)).toEqual([
      ["one", "two two"],
      ["three three three", "four"],
      ["five five"],
    ]);
    vectors.forEach((vector, index) => {
      expect(vector[0]).toBeCloseTo(unit(rawVector(texts[index]))[0], 6);
    });
  });

  it("cuts a text longer than maxInputCharacters before sending it", async () => {
    await client({ maxInputCharacters: 10 }).embed(["0123456789abcdef", "short"]);
    expect((server.requests[0].body as EmbeddingsRequestBody).input).toEqual(["0123456789", "short"]);
  });

  it("never cuts a text between the two halves of a surrogate pair", async () => {
    await client({ maxInputCharacters: 3 }).embed(["ab\u{1F426}c"]);
    expect((server.requests[0].body as EmbeddingsRequestBody).input).toEqual(["ab"]);
  });

  it("refuses an answer larger than maxAnswerBytes", async () => {
    server.answer = () => ({
      status: 200,
      body: { data: [{ index: 0, embedding: new Array(5000).fill(0.5) }] },
    });
    const failure = await failureOf(client({ maxAnswerBytes: 10_000 }).embed(["a"]));
    expect(failure.kind).toBe("bad_answer");
    expect(failure.message).toBe("the embedding model server answered with more than 10000 bytes");
  });

  it("refuses no texts or a blank text without sending anything", async () => {
    expect((await failureOf(client().embed([]))).kind).toBe("invalid_input");
    expect((await failureOf(client().embed(["fine", "  "]))).kind).toBe("invalid_input");
    expect(server.requests).toHaveLength(0);
  });

  it("refuses vectors that are not SVC_MEMORY_EMBEDDING_DIMENSIONS long", async () => {
    server.answer = (request) => openAiAnswer({ ...request, body: { input: ["a", "b"], dimensions: 3 } });
    const failure = await failureOf(client({ dimensions: 8 }).embed(["a", "b"]));
    expect(failure.kind).toBe("bad_answer");
    expect(failure.message).toMatch(/SVC_MEMORY_EMBEDDING_DIMENSIONS=8/);
    expect(failure.retryable).toBe(false);
  });

  it.each([
    [
      "a vector of another length",
      {
        data: [
          { index: 0, embedding: [1, 2] },
          { index: 1, embedding: [1, 2, 3] },
        ],
      },
    ],
    ["too few embeddings", { data: [{ index: 0, embedding: [1, 2] }] }],
    [
      "an index twice",
      {
        data: [
          { index: 0, embedding: [1, 2] },
          { index: 0, embedding: [1, 2] },
        ],
      },
    ],
    [
      "an index out of range",
      {
        data: [
          { index: 0, embedding: [1, 2] },
          { index: 2, embedding: [1, 2] },
        ],
      },
    ],
    [
      "a zero vector",
      {
        data: [
          { index: 0, embedding: [1, 2] },
          { index: 1, embedding: [0, 0] },
        ],
      },
    ],
    [
      "a non-numeric value",
      {
        data: [
          { index: 0, embedding: [1, 2] },
          { index: 1, embedding: [1, "2"] },
        ],
      },
    ],
    ["no data list", { object: "list" }],
  ])("refuses an answer with %s", async (_, body) => {
    server.answer = () => ({ status: 200, body: { ...body, model: "recorded-model" } });
    expect((await failureOf(client().embed(["a", "b"]))).kind).toBe("bad_answer");
  });

  it("refuses a 200 whose body is not JSON", async () => {
    server.answer = () => ({ status: 200, body: "<html>gateway</html>" });
    expect((await failureOf(client().embed(["a"]))).kind).toBe("bad_answer");
  });

  it("refuses an answer that names no model when none is configured, and a model switch between batches", async () => {
    server.answer = (request) => {
      const answer = openAiAnswer(request);
      if (answer === "no_answer") return answer;
      return { ...answer, body: { ...(answer.body as object), model: `model-${server.requests.length}` } };
    };
    const failure = await failureOf(client({ maxBatchSize: 1 }).embed(["a", "b"]));
    expect(failure.kind).toBe("bad_answer");
    expect(failure.message).toMatch(/switched model from model-1 to model-2/);
    server.answer = () => ({ status: 200, body: { data: [{ index: 0, embedding: [1, 0] }] } });
    expect((await failureOf(client().embed(["a"]))).message).toMatch(/SVC_MEMORY_EMBEDDING_MODEL/);
  });

  it("turns a 500 into a retryable rejection and a 401 into a final one, without quoting the server's message", async () => {
    server.answer = () => ({ status: 500, body: "Internal Server Error" });
    const serverError = await failureOf(client().embed(["a"]));
    expect([serverError.kind, serverError.status, serverError.retryable]).toEqual(["rejected", 500, true]);
    server.answer = (request) => ({
      status: 401,
      body: { error: { code: "unauthorized", message: `no key for ${JSON.stringify(request.body)}` } },
    });
    const secret = "The vault code is 4417 and lives behind the painting.";
    const unauthorised = await failureOf(client({ destination: "managed_provider" }).embed([secret]));
    expect([unauthorised.kind, unauthorised.status, unauthorised.retryable]).toEqual([
      "rejected",
      401,
      false,
    ]);
    expect(unauthorised.destination).toBe("managed_provider");
    expect(unauthorised.message).toBe("the embedding provider answered 401: unauthorized");
    expect(unauthorised.message).not.toContain("4417");
  });

  it("does not follow a redirect, so the texts reach no other address", async () => {
    const elsewhere = await startFakeEmbeddingsServer();
    try {
      server.answer = () => ({ status: 307, body: "", headers: { location: `${elsewhere.url}/embeddings` } });
      const failure = await failureOf(client().embed(["a"]));
      expect([failure.kind, failure.status]).toEqual(["rejected", 307]);
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it("gives up after SVC_MEMORY_EMBEDDING_TIMEOUT_SECONDS when the server never answers", async () => {
    server.answer = () => "no_answer";
    const failure = await failureOf(client({ timeoutSeconds: 0.2 }).embed(["a"]));
    expect([failure.kind, failure.retryable]).toEqual(["timeout", true]);
    expect(failure.message).toBe("the embedding model server did not answer within 0.2 s");
  });

  it("reports an address where nothing listens as unreachable", async () => {
    const port = await freePort();
    const failure = await failureOf(client({ baseUrl: `http://127.0.0.1:${port}/v1` }).embed(["a"]));
    expect([failure.kind, failure.retryable]).toEqual(["unreachable", true]);
    expect(failure.message).toContain("ECONNREFUSED");
  });

  it("stops when the caller's signal aborts", async () => {
    server.answer = () => "no_answer";
    const controller = new AbortController();
    const call = client().embed(["a"], controller.signal);
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    const failure = await failureOf(call);
    expect([failure.kind, failure.retryable]).toEqual(["aborted", false]);
  });
});
