/**
 * The selection rule (docs/configuration.md#embeddings-semantic-search): from the parsed
 * SVC_MEMORY_EMBEDDING_* settings to where embeddings come from, or null when they are off.
 * Memory content leaves the deployment only when SVC_MEMORY_EMBEDDING_PROVIDER names a managed
 * provider: without one, the base URL must point inside the operator's network, or start-up stops.
 */
import type { Config } from "../../core/index.ts";
import type { EmbeddingDestination } from "../../core/ports/embeddings.ts";
import { isInsideDeployment } from "./deployment-hosts.ts";

export type EmbeddingConfig = Pick<
  Config,
  | "SVC_MEMORY_EMBEDDINGS_ENABLED"
  | "SVC_MEMORY_EMBEDDING_PROVIDER"
  | "SVC_MEMORY_EMBEDDING_BASE_URL"
  | "SVC_MEMORY_EMBEDDING_API_KEY"
  | "SVC_MEMORY_EMBEDDING_MODEL"
  | "SVC_MEMORY_EMBEDDING_DIMENSIONS"
  | "SVC_MEMORY_EMBEDDING_TIMEOUT_SECONDS"
>;

export const defaultModelServerUrl = "http://127.0.0.1:8000/v1";
export const defaultOpenAiUrl = "https://api.openai.com/v1";

export interface EmbeddingSettings {
  destination: EmbeddingDestination;
  /** Without a trailing slash; requests go to `${baseUrl}/embeddings`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` when set. */
  apiKey: string | null;
  /** Sent as `model` when set; null lets the model server use its own. */
  model: string | null;
  /** Sent as `dimensions` when set, and every vector must have this length. */
  dimensions: number | null;
  timeoutSeconds: number;
}

/** Returns null when embeddings are off; throws an Error naming each wrong variable otherwise. */
export function resolveEmbeddingSettings(config: EmbeddingConfig): EmbeddingSettings | null {
  if (!config.SVC_MEMORY_EMBEDDINGS_ENABLED) return null;
  const provider = config.SVC_MEMORY_EMBEDDING_PROVIDER;
  const problems: string[] = [];
  const configuredUrl = config.SVC_MEMORY_EMBEDDING_BASE_URL;
  const baseUrl =
    configuredUrl ??
    (provider === undefined ? defaultModelServerUrl : provider === "openai" ? defaultOpenAiUrl : null);
  const insideDeployment = baseUrl !== null && isInsideDeployment(new URL(baseUrl).hostname);

  if (provider === undefined) {
    if (!insideDeployment) {
      problems.push(
        `SVC_MEMORY_EMBEDDING_BASE_URL: ${baseUrl} is outside this deployment, and memory content leaves it only when SVC_MEMORY_EMBEDDING_PROVIDER names a managed provider; point it at the model server by a loopback or private address, a single-label name or a name under .internal, .local, .lan or .home.arpa, or set SVC_MEMORY_EMBEDDING_PROVIDER=openai-compatible to send memories there on purpose`,
      );
    }
  } else {
    const managed = `SVC_MEMORY_EMBEDDING_PROVIDER=${provider}`;
    if (baseUrl === null) problems.push(`SVC_MEMORY_EMBEDDING_BASE_URL: required with ${managed}`);
    else if (new URL(baseUrl).protocol !== "https:" && !insideDeployment) {
      problems.push(
        `SVC_MEMORY_EMBEDDING_BASE_URL: must be https:// to reach a managed provider over the internet`,
      );
    }
    if (provider === "openai" && config.SVC_MEMORY_EMBEDDING_API_KEY === undefined) {
      problems.push(`SVC_MEMORY_EMBEDDING_API_KEY: required with ${managed}`);
    }
    if (config.SVC_MEMORY_EMBEDDING_MODEL === undefined) {
      problems.push(
        `SVC_MEMORY_EMBEDDING_MODEL: required with ${managed} (for example text-embedding-3-small)`,
      );
    }
  }
  if (problems.length > 0 || baseUrl === null) {
    throw new Error(`Invalid configuration: ${problems.join("; ")}`);
  }
  return {
    destination: provider === undefined ? "model_server" : "managed_provider",
    baseUrl,
    apiKey: config.SVC_MEMORY_EMBEDDING_API_KEY ?? null,
    model: config.SVC_MEMORY_EMBEDDING_MODEL ?? null,
    dimensions: config.SVC_MEMORY_EMBEDDING_DIMENSIONS ?? null,
    timeoutSeconds: config.SVC_MEMORY_EMBEDDING_TIMEOUT_SECONDS,
  };
}
