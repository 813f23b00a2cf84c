/**
 * An EmbeddingProvider over any OpenAI-compatible `POST {base}/embeddings` (Cairn's model server,
 * OpenAI, or another compatible API), using only web-standard fetch. Texts go in batches of at
 * most `maxBatchSize`, one request after another, each bounded by the timeout; redirects are
 * refused so the texts reach only the configured address. Every failure is an EmbeddingFailure.
 */
import {
  type EmbeddingDestination,
  EmbeddingFailure,
  type EmbeddingProvider,
  type Embeddings,
} from "../../core/ports/embeddings.ts";
import type { EmbeddingSettings } from "./embedding-settings.ts";
import { readEmbeddingsAnswer } from "./embeddings-answer.ts";

export interface OpenAiCompatibleEmbeddingsSettings extends EmbeddingSettings {
  /** Most texts in one request (default 128). */
  maxBatchSize?: number;
  /**
   * Longer texts are cut to this many characters before they are sent (default 8192, the model
   * server's limit): models read only their first few hundred tokens anyway.
   */
  maxInputCharacters?: number;
}

const describe = (destination: EmbeddingDestination): string =>
  destination === "model_server" ? "the embedding model server" : "the embedding provider";

export function createOpenAiCompatibleEmbeddings(
  settings: OpenAiCompatibleEmbeddingsSettings,
): EmbeddingProvider {
  const { destination } = settings;
  const maxBatchSize = settings.maxBatchSize ?? 128;
  const maxInputCharacters = settings.maxInputCharacters ?? 8192;
  const endpoint = `${settings.baseUrl}/embeddings`;
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (settings.apiKey !== null) headers.authorization = `Bearer ${settings.apiKey}`;
  const failure = (
    kind: EmbeddingFailure["kind"],
    message: string,
    extra: { status?: number; cause?: unknown } = {},
  ) => new EmbeddingFailure(kind, message, { destination, ...extra });

  async function post(texts: string[], signal: AbortSignal | undefined): Promise<unknown> {
    const timeout = AbortSignal.timeout(settings.timeoutSeconds * 1000);
    const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
    const body: Record<string, unknown> = { input: texts };
    if (settings.model !== null) body.model = settings.model;
    if (settings.dimensions !== null) body.dimensions = settings.dimensions;
    // Connection, status and body reading all fail alike: by who aborted, else unreachable.
    const classify = (error: unknown): EmbeddingFailure => {
      if (signal?.aborted) return failure("aborted", "the embedding call was cancelled", { cause: error });
      if (timeout.aborted) {
        return failure(
          "timeout",
          `${describe(destination)} did not answer within ${settings.timeoutSeconds} s`,
          {
            cause: error,
          },
        );
      }
      const code = (error as { cause?: { code?: unknown } }).cause?.code;
      const reason = typeof code === "string" ? ` (${code})` : "";
      return failure("unreachable", `${describe(destination)} is unreachable${reason}`, { cause: error });
    };
    let status: number;
    let text: string;
    try {
      const response = await fetch(endpoint, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        signal: combined,
        redirect: "manual",
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      throw classify(error);
    }
    if (status < 200 || status > 299) {
      throw failure("rejected", `${describe(destination)} answered ${status}${errorDetail(status, text)}`, {
        status,
      });
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      throw failure(
        "bad_answer",
        `${describe(destination)} answered ${status} with a body that is not JSON`,
        {
          cause: error,
        },
      );
    }
  }

  async function embed(texts: readonly string[], signal?: AbortSignal): Promise<Embeddings> {
    if (texts.length === 0) throw failure("invalid_input", "there is nothing to embed");
    const blank = texts.findIndex((text) => typeof text !== "string" || text.trim() === "");
    if (blank >= 0) throw failure("invalid_input", `text ${blank} is blank`);
    let modelId = settings.model;
    let dimensions = settings.dimensions;
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += maxBatchSize) {
      if (signal?.aborted)
        throw failure("aborted", "the embedding call was cancelled", { cause: signal.reason });
      const batch = texts.slice(start, start + maxBatchSize).map((text) => cut(text, maxInputCharacters));
      const answer = readEmbeddingsAnswer(await post(batch, signal), {
        count: batch.length,
        dimensions,
        destination,
      });
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

  return {
    destination,
    modelId: settings.model,
    dimensions: settings.dimensions,
    maxBatchSize,
    embed,
  };
}

/** The first `limit` characters, never ending inside a surrogate pair. */
function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const code = text.charCodeAt(limit - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit);
}

/**
 * `: code` from an error body in OpenAI's or Cairn's shape. The server's message is left out: it
 * may quote the input, and a failure's message must never carry memory content.
 */
function errorDetail(status: number, text: string): string {
  if (status >= 300 && status < 400) return " with a redirect, which is not followed";
  try {
    const error = (JSON.parse(text) as { error?: { code?: unknown; type?: unknown } }).error;
    const code = typeof error?.code === "string" ? error.code : error?.type;
    return typeof code === "string" && /^[\w.-]{1,64}$/.test(code) ? `: ${code}` : "";
  } catch {
    return "";
  }
}
