/**
 * The selection rule, from environment variables as an operator writes them: off means no
 * provider; without SVC_MEMORY_EMBEDDING_PROVIDER the texts go only to a model server inside the
 * deployment; a managed provider needs what it needs; every refusal names the variable.
 */
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../core/index.ts";
import {
  type FakeEmbeddingsServer,
  startFakeEmbeddingsServer,
} from "../../test/doubles/fake-embeddings-server.ts";
import { createEmbeddingProvider } from "./create-embedding-provider.ts";
import { isInsideDeployment } from "./deployment-hosts.ts";
import { resolveEmbeddingSettings } from "./embedding-settings.ts";

const resolve = (environment: Record<string, string>) =>
  resolveEmbeddingSettings(loadConfig({ SVC_MEMORY_EMBEDDINGS_ENABLED: "true", ...environment }));

const insideUrls = [
  "http://127.0.0.1:8000/v1",
  "http://localhost:8000/v1",
  "http://models.localhost/v1",
  "http://[::1]:8000/v1",
  "http://10.1.2.3:8000/v1",
  "http://172.20.0.5/v1",
  "http://192.168.1.20:8000/v1",
  "http://100.101.102.103/v1",
  "http://[fd12:3456::1]/v1",
  "http://model-server:8000/v1",
  "http://cairn-model.cairn.svc.cluster.local:8000/v1",
  "http://ip-10-0-0-5.ec2.internal/v1",
  "http://gpu-box.lan/v1",
  "http://gpu.home.arpa/v1",
  "https://embeddings.internal/v1",
];
const outsideUrls = [
  "https://api.openai.com/v1",
  "http://8.8.8.8/v1",
  "http://0x08080808/v1",
  "http://embeddings.example.com/v1",
  "http://[2001:4860:4860::8888]/v1",
  "http://localhost.example.com/v1",
  "http://internal.example.com/v1",
];

describe("embedding selection", () => {
  it("selects nothing when embeddings are off, whatever else is set", () => {
    for (const environment of [
      {},
      {
        SVC_MEMORY_EMBEDDING_PROVIDER: "openai",
        SVC_MEMORY_EMBEDDING_API_KEY: "sk-x",
        SVC_MEMORY_EMBEDDING_MODEL: "m",
      },
      { SVC_MEMORY_EMBEDDING_BASE_URL: "https://api.openai.com/v1" },
      { SVC_MEMORY_EMBEDDING_PROVIDER: "openai" },
    ]) {
      expect(createEmbeddingProvider(loadConfig(environment))).toBeNull();
      expect(
        createEmbeddingProvider(loadConfig({ ...environment, SVC_MEMORY_EMBEDDINGS_ENABLED: "false" })),
      ).toBeNull();
    }
  });

  it("defaults to the model server on loopback with the model server's own model", () => {
    expect(resolve({})).toEqual({
      destination: "model_server",
      baseUrl: "http://127.0.0.1:8000/v1",
      apiKey: null,
      model: null,
      dimensions: null,
      timeoutSeconds: 10,
    });
    const provider = createEmbeddingProvider(loadConfig({ SVC_MEMORY_EMBEDDINGS_ENABLED: "true" }));
    expect([provider?.destination, provider?.modelId, provider?.dimensions]).toEqual([
      "model_server",
      null,
      null,
    ]);
  });

  it("treats an empty SVC_MEMORY_EMBEDDING_PROVIDER as unset", () => {
    expect(resolve({ SVC_MEMORY_EMBEDDING_PROVIDER: " " })?.destination).toBe("model_server");
  });

  it.each(insideUrls)("lets the model server live at %s, inside the deployment", (url) => {
    const settings = resolve({
      SVC_MEMORY_EMBEDDING_BASE_URL: `${url}/`,
      SVC_MEMORY_EMBEDDING_API_KEY: "local-key",
    });
    expect(settings).toMatchObject({ destination: "model_server", baseUrl: url, apiKey: "local-key" });
  });

  it.each(outsideUrls)("refuses %s without a named provider, naming both variables", (url) => {
    expect(() => resolve({ SVC_MEMORY_EMBEDDING_BASE_URL: url })).toThrow(
      /SVC_MEMORY_EMBEDDING_BASE_URL: .* is outside this deployment.*SVC_MEMORY_EMBEDDING_PROVIDER=openai-compatible/,
    );
  });

  it("guarantees that without a provider the only destination is a model server inside the deployment", () => {
    const keys = [undefined, "sk-live-key"];
    const models = [undefined, "text-embedding-3-small"];
    for (const url of [undefined, ...insideUrls, ...outsideUrls]) {
      for (const key of keys) {
        for (const model of models) {
          const environment: Record<string, string> = {};
          if (url !== undefined) environment.SVC_MEMORY_EMBEDDING_BASE_URL = url;
          if (key !== undefined) environment.SVC_MEMORY_EMBEDDING_API_KEY = key;
          if (model !== undefined) environment.SVC_MEMORY_EMBEDDING_MODEL = model;
          let settings: ReturnType<typeof resolve> | "refused";
          try {
            settings = resolve(environment);
          } catch {
            settings = "refused";
          }
          if (settings === "refused") {
            expect(outsideUrls).toContain(url);
            continue;
          }
          expect(settings?.destination).toBe("model_server");
          expect(isInsideDeployment(new URL(settings?.baseUrl ?? "").hostname)).toBe(true);
        }
      }
    }
  });

  it("openai: the public API by default, needing a key and a model", () => {
    expect(() => resolve({ SVC_MEMORY_EMBEDDING_PROVIDER: "openai" })).toThrow(
      /SVC_MEMORY_EMBEDDING_API_KEY: required with SVC_MEMORY_EMBEDDING_PROVIDER=openai; SVC_MEMORY_EMBEDDING_MODEL: required/,
    );
    expect(
      resolve({
        SVC_MEMORY_EMBEDDING_PROVIDER: "openai",
        SVC_MEMORY_EMBEDDING_API_KEY: "sk-test",
        SVC_MEMORY_EMBEDDING_MODEL: "text-embedding-3-small",
        SVC_MEMORY_EMBEDDING_DIMENSIONS: "512",
        SVC_MEMORY_EMBEDDING_TIMEOUT_SECONDS: "2.5",
      }),
    ).toEqual({
      destination: "managed_provider",
      baseUrl: "https://api.openai.com/v1",
      apiKey: "sk-test",
      model: "text-embedding-3-small",
      dimensions: 512,
      timeoutSeconds: 2.5,
    });
  });

  it("openai-compatible: needs a base URL and a model, https unless the host is inside the deployment", () => {
    expect(() => resolve({ SVC_MEMORY_EMBEDDING_PROVIDER: "openai-compatible" })).toThrow(
      /SVC_MEMORY_EMBEDDING_BASE_URL: required with SVC_MEMORY_EMBEDDING_PROVIDER=openai-compatible; SVC_MEMORY_EMBEDDING_MODEL: required/,
    );
    const managed = {
      SVC_MEMORY_EMBEDDING_PROVIDER: "openai-compatible",
      SVC_MEMORY_EMBEDDING_MODEL: "bge-m3",
    };
    expect(() =>
      resolve({ ...managed, SVC_MEMORY_EMBEDDING_BASE_URL: "http://embeddings.example.com/v1" }),
    ).toThrow(/SVC_MEMORY_EMBEDDING_BASE_URL: must be https/);
    expect(
      resolve({ ...managed, SVC_MEMORY_EMBEDDING_BASE_URL: "https://embeddings.example.com/v1" }),
    ).toMatchObject({
      destination: "managed_provider",
      baseUrl: "https://embeddings.example.com/v1",
      apiKey: null,
    });
    expect(
      resolve({ ...managed, SVC_MEMORY_EMBEDDING_BASE_URL: "http://10.0.0.9:8080/v1" })?.destination,
    ).toBe("managed_provider");
  });

  it.each([
    ["SVC_MEMORY_EMBEDDING_PROVIDER", "cohere"],
    ["SVC_MEMORY_EMBEDDING_BASE_URL", "ftp://127.0.0.1/v1"],
    ["SVC_MEMORY_EMBEDDING_BASE_URL", "not a url"],
    ["SVC_MEMORY_EMBEDDING_BASE_URL", "http://user:secret@127.0.0.1:8000/v1"],
    ["SVC_MEMORY_EMBEDDING_BASE_URL", "http://127.0.0.1:8000/v1?key=x"],
    ["SVC_MEMORY_EMBEDDING_API_KEY", "two words"],
    ["SVC_MEMORY_EMBEDDING_DIMENSIONS", "0"],
    ["SVC_MEMORY_EMBEDDING_TIMEOUT_SECONDS", "0"],
    ["SVC_MEMORY_EMBEDDING_TIMEOUT_SECONDS", "86400"],
  ])("refuses %s=%s at start-up, naming the variable", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`Invalid configuration: ${name}: `));
  });
});

describe("where texts go without a provider", () => {
  const servers: FakeEmbeddingsServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it("only to the configured model server, even when OpenAI's own variables point elsewhere", async () => {
    const modelServer = await startFakeEmbeddingsServer();
    const managedProvider = await startFakeEmbeddingsServer();
    servers.push(modelServer, managedProvider);
    // What an OpenAI SDK would pick up from the environment: Cairn reads only SVC_ settings.
    const environment = {
      OPENAI_BASE_URL: managedProvider.url,
      OPENAI_API_KEY: "sk-should-not-be-used",
      SVC_MEMORY_EMBEDDINGS_ENABLED: "true",
      SVC_MEMORY_EMBEDDING_BASE_URL: modelServer.url,
      SVC_MEMORY_EMBEDDING_MODEL: "text-embedding-3-small",
    };
    const provider = createEmbeddingProvider(loadConfig(environment));
    const sentence = "Quillon the heron keeps the ledger of the moonlit marsh.";
    const result = await provider?.embed([sentence]);
    expect(result?.vectors).toHaveLength(1);
    expect(provider?.destination).toBe("model_server");
    expect(modelServer.requests.map((request) => request.body)).toEqual([
      { model: "text-embedding-3-small", input: [sentence], input_type: "document" },
    ]);
    expect(managedProvider.requests).toHaveLength(0);
  });
});
