/**
 * The embeddings plugin: memory text to vectors over an OpenAI-compatible API, the deployment's
 * model server unless the operator names a provider; none when semantic search is off.
 */
import { definePlugin, version } from "../../core/index.ts";
import { createEmbeddingProvider } from "./create-embedding-provider.ts";

export default definePlugin({
  name: "embeddings",
  version,
  ports: { embeddings: { "openai-compatible": async ({ config }) => createEmbeddingProvider(config) } },
});
