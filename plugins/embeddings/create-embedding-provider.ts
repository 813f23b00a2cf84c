/**
 * What the platform calls at start-up: the EmbeddingProvider the SVC_MEMORY_EMBEDDING_* settings
 * select, or null when embeddings are off. A wrong setting throws an Error naming the variable,
 * so a misconfigured server stops before it serves anything.
 */
import type { EmbeddingProvider } from "../../core/ports/embeddings.ts";
import { createOpenAiCompatibleEmbeddings } from "./create-openai-compatible-embeddings.ts";
import { type EmbeddingConfig, resolveEmbeddingSettings } from "./embedding-settings.ts";

export function createEmbeddingProvider(config: EmbeddingConfig): EmbeddingProvider | null {
  const settings = resolveEmbeddingSettings(config);
  return settings === null ? null : createOpenAiCompatibleEmbeddings(settings);
}
