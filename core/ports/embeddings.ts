/**
 * The embeddings port: text in, unit-length vectors out, for semantic memory search
 * (docs/configuration.md#embeddings-semantic-search). `plugins/embeddings` implements it over an
 * OpenAI-compatible `POST {base}/embeddings`, sent to the self-hosted model server unless the
 * operator names a managed provider. Every failure is an `EmbeddingFailure`, which callers turn
 * into a search `warnings` entry or a queue retry; it is never a ServiceError, so it can never
 * reach a client as an API error.
 */

/** Where memory content goes: the deployment's own model server, or a provider the operator named. */
export type EmbeddingDestination = "model_server" | "managed_provider";

/** What a text is to the model: a search query, or anything else. */
export type EmbeddingInputType = "query" | "document";

export interface EmbeddingProvider {
  /** Where `embed` sends the texts; "managed_provider" only when SVC_MEMORY_EMBEDDING_PROVIDER is set. */
  readonly destination: EmbeddingDestination;
  /** SVC_MEMORY_EMBEDDING_MODEL, or null when the model server's own model is used (its name comes back with each answer). */
  readonly modelId: string | null;
  /** SVC_MEMORY_EMBEDDING_DIMENSIONS, or null for the model's native width (each `Embeddings` says what it was). */
  readonly dimensions: number | null;
  /** Most texts sent in one request; `embed` splits a longer list into requests of this size, one after another. */
  readonly maxBatchSize: number;
  /**
   * Embeds at least one non-blank text; resolves to one L2-normalised vector per text, in input
   * order, all of one model and one length. Rejects only with an EmbeddingFailure. `inputType`
   * "query" marks search queries (default "document"): Cairn's model server gives them the
   * prompt its model was trained with for queries; a managed provider is not told.
   */
  embed(texts: readonly string[], signal?: AbortSignal, inputType?: EmbeddingInputType): Promise<Embeddings>;
}

export interface Embeddings {
  /** The model the vectors belong to: SVC_MEMORY_EMBEDDING_MODEL, else the name the server answered with. */
  modelId: string;
  /** The length of every vector. */
  dimensions: number;
  /** Unit-length vectors, `vectors[i]` for `texts[i]`. */
  vectors: Float32Array[];
}

/**
 * Why an embedding failed:
 * - `invalid_input`: the caller passed no texts or a blank one; nothing was sent.
 * - `unreachable`: no connection (refused, reset, DNS failure).
 * - `timeout`: no complete answer within SVC_MEMORY_EMBEDDING_TIMEOUT_SECONDS.
 * - `rejected`: the server answered with a non-2xx status (`status` says which; redirects are not followed).
 * - `bad_answer`: a 2xx answer that is not JSON, has the wrong count, indices or widths, or a zero vector.
 * - `aborted`: the caller's signal aborted the call.
 */
export type EmbeddingFailureKind =
  | "invalid_input"
  | "unreachable"
  | "timeout"
  | "rejected"
  | "bad_answer"
  | "aborted";

/** The one failure `embed` rejects with. Its message never contains the texts, so it is safe to log and to show. */
export class EmbeddingFailure extends Error {
  readonly kind: EmbeddingFailureKind;
  readonly destination: EmbeddingDestination;
  /** The HTTP status of a `rejected` answer, else null. */
  readonly status: number | null;
  /** True when the same call may succeed later (unreachable, timeout, 408, 429 and 5xx answers). */
  readonly retryable: boolean;

  constructor(
    kind: EmbeddingFailureKind,
    message: string,
    options: { destination: EmbeddingDestination; status?: number; cause?: unknown },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "EmbeddingFailure";
    this.kind = kind;
    this.destination = options.destination;
    this.status = options.status ?? null;
    this.retryable =
      kind === "unreachable" ||
      kind === "timeout" ||
      (kind === "rejected" &&
        this.status !== null &&
        (this.status === 408 || this.status === 429 || this.status >= 500));
  }
}
