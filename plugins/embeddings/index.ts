/** Entry of the embeddings plugin: the OpenAI-compatible client and the rule that selects its destination. */
export { createEmbeddingProvider } from "./create-embedding-provider.ts";
export {
  createOpenAiCompatibleEmbeddings,
  type OpenAiCompatibleEmbeddingsSettings,
} from "./create-openai-compatible-embeddings.ts";
export { internalNameSuffixes, isInsideDeployment } from "./deployment-hosts.ts";
export {
  defaultModelServerUrl,
  defaultOpenAiUrl,
  type EmbeddingConfig,
  type EmbeddingSettings,
  resolveEmbeddingSettings,
} from "./embedding-settings.ts";
