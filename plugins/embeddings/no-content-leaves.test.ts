/**
 * A real Cairn server, remembering and recalling a distinctive sentence, sends nothing to a
 * recording stand-in for a managed provider: neither with embeddings off nor with embeddings on
 * and no SVC_MEMORY_EMBEDDING_PROVIDER, even when OpenAI's own environment variables point at it.
 * The control plane does not call an embedding provider yet (the embedding queue will), so
 * embedding-settings.test.ts also proves the selection rule's guarantee directly.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeEmbeddingsServer,
  startFakeEmbeddingsServer,
} from "../../test/doubles/fake-embeddings-server.ts";
import { createAccount, type LiveServer, startLiveServer } from "../../test/mcp/mcp-harness.ts";
import { postJson } from "../../test/support/processes.ts";

const sentence = "Quillon the heron keeps the ledger of the moonlit marsh in a copper box.";

let managedProvider: FakeEmbeddingsServer;
let modelServer: FakeEmbeddingsServer;
beforeAll(async () => {
  managedProvider = await startFakeEmbeddingsServer();
  modelServer = await startFakeEmbeddingsServer();
});
afterAll(async () => {
  await managedProvider?.close();
  await modelServer?.close();
});

/** Starts a server with `environment`, remembers and recalls the sentence, then stops it. */
async function rememberAndRecall(environment: Record<string, string>): Promise<void> {
  const server: LiveServer = await startLiveServer({
    OPENAI_BASE_URL: managedProvider.url,
    OPENAI_API_BASE: managedProvider.url,
    OPENAI_API_KEY: "sk-should-never-be-used",
    SVC_MEMORY_EMBEDDING_API_KEY: "sk-should-never-be-used",
    SVC_MEMORY_EMBEDDING_MODEL: "text-embedding-3-small",
    ...environment,
  });
  try {
    const account = await createAccount(server.baseUrl);
    const created = await postJson<{ id: string }>(
      `${server.baseUrl}/v1/memory`,
      { content: sentence },
      account.key,
    );
    const search = await fetch(`${server.baseUrl}/v1/memory/search?q=${encodeURIComponent("heron ledger")}`, {
      headers: { authorization: `Bearer ${account.key}` },
    });
    const found = (await search.json()) as { memories: Array<{ id: string }> };
    // The proof is only worth something if the sentence really went through memory.
    expect(found.memories.map((memory) => memory.id)).toContain(created.id);
  } finally {
    await server.close();
  }
}

describe("memory content stays in the deployment", () => {
  it("with embeddings off, a managed provider receives nothing", async () => {
    await rememberAndRecall({ SVC_MEMORY_EMBEDDINGS_ENABLED: "false" });
    expect(managedProvider.requests).toHaveLength(0);
  });

  it("with embeddings on and no provider named, a managed provider receives nothing", async () => {
    await rememberAndRecall({
      SVC_MEMORY_EMBEDDINGS_ENABLED: "true",
      SVC_MEMORY_EMBEDDING_BASE_URL: modelServer.url,
    });
    expect(managedProvider.requests).toHaveLength(0);
    // Whatever the server sends embeddings to goes to the model server's embeddings route only.
    for (const request of modelServer.requests) expect(request.path).toBe("/v1/embeddings");
  });
});
