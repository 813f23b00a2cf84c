/**
 * Reads an OpenAI-style embeddings answer (`{data: [{embedding, index}], model}`) strictly: one
 * vector per input, each index once, every vector finite, non-zero and of one length (the
 * configured one when set), returned in input order and scaled to unit length.
 */
import { type EmbeddingDestination, EmbeddingFailure } from "../../core/ports/embeddings.ts";

export interface EmbeddingsAnswer {
  /** The `model` the server answered with, or null when it names none. */
  model: string | null;
  vectors: Float32Array[];
}

export function readEmbeddingsAnswer(
  body: unknown,
  expected: { count: number; dimensions: number | null; destination: EmbeddingDestination },
): EmbeddingsAnswer {
  const fail = (problem: string): never => {
    throw new EmbeddingFailure("bad_answer", `the embeddings answer ${problem}`, {
      destination: expected.destination,
    });
  };
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return fail("has no data list");
  if (data.length !== expected.count) {
    return fail(`holds ${data.length} embeddings for ${expected.count} inputs`);
  }
  const vectors: Float32Array[] = new Array(expected.count);
  let width = expected.dimensions;
  for (const item of data as Array<{ index?: unknown; embedding?: unknown } | null>) {
    const index = item?.index;
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= expected.count) {
      return fail(`has an item whose index is missing or not below ${expected.count}`);
    }
    if (vectors[index] !== undefined) return fail(`has index ${index} twice`);
    const embedding = item?.embedding;
    if (!Array.isArray(embedding) || embedding.length === 0)
      return fail(`has no embedding list at index ${index}`);
    if (width === null) width = embedding.length;
    if (embedding.length !== width) {
      return fail(
        expected.dimensions === null
          ? `mixes vectors of ${width} and ${embedding.length} dimensions`
          : `has ${embedding.length} dimensions at index ${index}, not SVC_MEMORY_EMBEDDING_DIMENSIONS=${width}`,
      );
    }
    const vector = normalise(embedding);
    if (vector === null) return fail(`has a zero or non-numeric vector at index ${index}`);
    vectors[index] = vector;
  }
  const model = (body as { model?: unknown }).model;
  return { model: typeof model === "string" && model !== "" ? model : null, vectors };
}

/** The unit-length copy of a vector, or null when it is zero or holds anything but finite numbers. */
function normalise(values: unknown[]): Float32Array | null {
  let squares = 0;
  for (const value of values) {
    if (typeof value !== "number" || !Number.isFinite(value)) return null;
    squares += value * value;
  }
  const length = Math.sqrt(squares);
  if (!(length > 0) || !Number.isFinite(length)) return null;
  const vector = new Float32Array(values.length);
  for (let position = 0; position < values.length; position++) {
    vector[position] = (values[position] as number) / length;
  }
  return vector;
}
