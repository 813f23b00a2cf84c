/**
 * An EmbeddingProvider over any OpenAI-compatible `POST {base}/embeddings` (Cairn's model server,
 * OpenAI, or another compatible API), using only web-standard fetch. Texts go in batches of at
 * most `maxBatchSize`, one request after another, each bounded by the timeout; the answers are
 * checked and normalised by readEmbeddingsAnswer. Every failure is an EmbeddingFailure.
 */
import {
  EmbeddingFailure,
  type EmbeddingInputType,
  type EmbeddingProvider,
  type Embeddings,
} from "../../core/ports/embeddings.ts";
import type { EmbeddingSettings } from "./embedding-settings.ts";
import { readEmbeddingsAnswer } from "./embeddings-answer.ts";
import { postEmbeddings } from "./post-embeddings.ts";

export interface OpenAiCompatibleEmbeddingsSettings extends EmbeddingSettings {
  /** Most texts in one request (default 128, which keeps a batch of the longest texts under OpenAI's per-request token limit). */
  maxBatchSize?: number;
  /**
   * Longer texts are cut to this many characters before they are sent (default 8192, the model
   * server's limit): models read only their first few hundred tokens anyway.
   */
  maxInputCharacters?: number;
  /** Larger answers are refused unread (default 64 MiB, far above 128 vectors of 4096 numbers). */
  maxAnswerBytes?: number;
}

export function createOpenAiCompatibleEmbeddings(
  settings: OpenAiCompatibleEmbeddingsSettings,
): EmbeddingProvider {
  const { destination } = settings;
  const maxBatchSize = settings.maxBatchSize ?? 128;
  const maxInputCharacters = settings.maxInputCharacters ?? 8192;
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (settings.apiKey !== null) headers.authorization = `Bearer ${settings.apiKey}`;
  const failure = (kind: EmbeddingFailure["kind"], message: string, cause?: unknown) =>
    new EmbeddingFailure(kind, message, { destination, cause });

  async function embed(
    texts: readonly string[],
    signal?: AbortSignal,
    inputType: EmbeddingInputType = "document",
  ): Promise<Embeddings> {
    if (texts.length === 0) throw failure("invalid_input", "there is nothing to embed");
    const blank = texts.findIndex((text) => typeof text !== "string" || text.trim() === "");
    if (blank >= 0) throw failure("invalid_input", `text ${blank} is blank`);
    let modelId = settings.model;
    let dimensions = settings.dimensions;
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += maxBatchSize) {
      if (signal?.aborted) throw failure("aborted", "the embedding call was cancelled", signal.reason);
      const batch = texts.slice(start, start + maxBatchSize).map((text) => cut(text, maxInputCharacters));
      const body: Record<string, unknown> = { input: batch };
      if (settings.model !== null) body.model = settings.model;
      if (settings.dimensions !== null) body.dimensions = settings.dimensions;
      // Cairn's model server's own field (OpenAI's API has none, and is not sent it).
      if (destination === "model_server") body.input_type = inputType;
      const answer = readEmbeddingsAnswer(
        await postEmbeddings({
          endpoint: `${settings.baseUrl}/embeddings`,
          headers,
          body,
          timeoutSeconds: settings.timeoutSeconds,
          maxAnswerBytes: settings.maxAnswerBytes ?? 64 * 1024 * 1024,
          destination,
          signal,
        }),
        { count: batch.length, dimensions, destination },
      );
      if (settings.model === null) {
        if (answer.model === null) {
          throw failure("bad_answer", "the embeddings answer names no model; set SVC_MEMORY_EMBEDDING_MODEL");
        }
        // A server that changes models between batches would mix two vector spaces.
        if (modelId !== null && answer.model !== modelId) {
          throw failure(
            "bad_answer",
            `the embeddings answers switched model from ${modelId} to ${answer.model}`,
          );
        }
        modelId = answer.model;
      }
      dimensions = answer.vectors[0].length;
      vectors.push(...answer.vectors);
    }
    return { modelId: modelId as string, dimensions: dimensions as number, vectors };
  }

  return { destination, modelId: settings.model, dimensions: settings.dimensions, maxBatchSize, embed };
}

/** The first `limit` characters, never ending inside a surrogate pair. */
function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const code = text.charCodeAt(limit - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit);
}
