/**
 * The memory model server as a real process (uvicorn + ONNX Runtime + the default model on this
 * CPU): real embeddings, health and readiness, batching, validation, the API key, `dimensions`,
 * the device rule at start-up, and `npm run model-server`'s start script. Its pure logic is tested
 * by pytest, run from here.
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cosine,
  type EmbeddingResponse,
  ensureModelServerEnvironment,
  ModelServerExited,
  modelServerFolder,
  type RunningModelServer,
  repositoryRoot,
  startModelServer,
  testEnvironment,
  testPython,
} from "./model-server-process.ts";

const setupTimeout = 300_000;

beforeAll(() => ensureModelServerEnvironment(), setupTimeout);

async function embed(server: RunningModelServer, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}/v1/embeddings`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { response, body: (await response.json()) as EmbeddingResponse & { error?: { code: string } } };
}

it("passes its pytest suite (device rules, validation, batch planning, settings, models by path)", () => {
  const run = spawnSync(
    testPython,
    ["-m", "pytest", "-q", "-p", "no:cacheprovider", resolve(import.meta.dirname, "python")],
    { cwd: repositoryRoot, encoding: "utf8" },
  );
  expect(run.status, run.stdout + run.stderr).toBe(0);
  expect(run.stdout).toMatch(/\d+ passed/);
}, 120_000);

it("is formatted and lint-clean (ruff, configured in plugins/model-server/pyproject.toml)", () => {
  const ruff = resolve(testEnvironment, "bin/ruff");
  const options = ["--config", resolve(modelServerFolder, "pyproject.toml")];
  const paths = [modelServerFolder, resolve(import.meta.dirname, "python")];
  const format = spawnSync(ruff, ["format", "--check", ...options, ...paths], { encoding: "utf8" });
  expect(format.status, format.stdout + format.stderr).toBe(0);
  const lint = spawnSync(ruff, ["check", ...options, ...paths], { encoding: "utf8" });
  expect(lint.status, lint.stdout + lint.stderr).toBe(0);
});

describe("lazy loading, batches of two", () => {
  let server: RunningModelServer;
  beforeAll(async () => {
    server = await startModelServer({ environment: { SVC_MODEL_MAX_BATCH_SIZE: "2" } });
  });
  afterAll(() => server?.stop());

  it("reports the CPU and no model before the first request, and is not ready", async () => {
    const health = await (await fetch(`${server.url}/health`)).json();
    expect(health).toMatchObject({ status: "ok", embedding_loaded: false, device: "cpu" });
    expect((await fetch(`${server.url}/health/ready`)).status).toBe(503);
  });

  it("serves real embeddings: a paraphrase is closer than an unrelated sentence", async () => {
    const { response, body } = await embed(server, {
      model: "all-MiniLM-L6-v2",
      input: [
        "A man is playing a guitar.",
        "Someone is strumming a guitar.",
        "The central bank raised interest rates again.",
      ],
    });
    expect(response.status).toBe(200);
    const [guitar, paraphrase, unrelated] = body.data.map((item) => item.embedding);
    expect(cosine(guitar, paraphrase)).toBeGreaterThan(0.6);
    expect(cosine(guitar, unrelated)).toBeLessThan(0.2);
  });

  it("is loaded and ready after the first request", async () => {
    const health = await (await fetch(`${server.url}/health`)).json();
    expect(health).toMatchObject({ embedding_loaded: true, device: "cpu", dimensions: 384 });
    expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);
  });

  it("answers in OpenAI's shape exactly, with unit vectors of the native width", async () => {
    const { response, body } = await embed(server, { input: "one string is one item" });
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(Object.keys(body).sort()).toEqual(["data", "model", "object", "usage"]);
    expect(body.object).toBe("list");
    expect(body.model).toBe("all-MiniLM-L6-v2");
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens);
    expect(body.data).toHaveLength(1);
    const [item] = body.data;
    expect(Object.keys(item).sort()).toEqual(["embedding", "index", "object"]);
    expect(item).toMatchObject({ object: "embedding", index: 0 });
    expect(item.embedding).toHaveLength(384);
    expect(Math.hypot(...item.embedding)).toBeCloseTo(1, 5);
  });

  it("splits inputs above the batch size into several runs and keeps index order", async () => {
    const texts = [
      "a much longer sentence about the migration of birds across the northern sea in autumn",
      "short",
      "a medium sentence about cooking rice",
      "tiny words",
      "the fifth and last input of this request",
    ];
    const { response, body } = await embed(server, { input: texts });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-model-batches")).toBe("3");
    expect(body.data.map((item) => item.index)).toEqual([0, 1, 2, 3, 4]);
    for (const [position, text] of texts.entries()) {
      const alone = (await embed(server, { input: text })).body.data[0].embedding;
      expect(cosine(body.data[position].embedding, alone)).toBeGreaterThan(0.9999);
    }
  });

  it("truncates and renormalises to smaller dimensions and refuses larger ones", async () => {
    const text = "memories of a summer by the lake";
    const native = (await embed(server, { input: text })).body.data[0].embedding;
    const { response, body } = await embed(server, { input: text, dimensions: 64 });
    expect(response.status).toBe(200);
    const small = body.data[0].embedding;
    expect(small).toHaveLength(64);
    expect(Math.hypot(...small)).toBeCloseTo(1, 5);
    expect(cosine(small, native.slice(0, 64))).toBeGreaterThan(0.9999);
    const larger = await embed(server, { input: text, dimensions: 385 });
    expect(larger.response.status).toBe(400);
    expect(larger.body.error?.code).toBe("invalid_dimensions");
  });

  it.each([
    ["an empty list", { input: [] }, "invalid_input"],
    ["a non-string item", { input: ["fine", 42] }, "invalid_input"],
    ["an empty string", { input: [""] }, "invalid_input"],
    ["no input", { model: "all-MiniLM-L6-v2" }, "invalid_input"],
    ["an input over 8192 characters", { input: ["x".repeat(8193)] }, "input_too_long"],
    ["more than 2048 inputs", { input: Array(2049).fill("a") }, "too_many_inputs"],
    ["another model", { input: "hi", model: "text-embedding-3-small" }, "model_not_found"],
    ["a zero width", { input: "hi", dimensions: 0 }, "invalid_input"],
    ["a body that is not JSON", "{not json", "invalid_json"],
  ])("refuses %s with 400", async (_name, requestBody, code) => {
    const { response, body } = await embed(server, requestBody);
    expect(response.status).toBe(400);
    expect(body.error).toMatchObject({ code, type: "invalid_request_error" });
  });
});

describe("eager loading with an API key and small request limits", () => {
  const authorization = { authorization: "Bearer model-server-test-key" };
  let server: RunningModelServer;
  beforeAll(async () => {
    server = await startModelServer({
      environment: {
        SVC_EAGER_LOAD: "true",
        SVC_MODEL_API_KEY: "model-server-test-key",
        SVC_MODEL_MAX_INPUTS: "2",
        SVC_MODEL_MAX_INPUT_CHARACTERS: "100",
      },
    });
  });
  afterAll(() => server?.stop());

  it("has loaded its model before it answers at all", async () => {
    expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);
    expect(await (await fetch(`${server.url}/health`)).json()).toMatchObject({ embedding_loaded: true });
  });

  it.each([
    ["no Authorization header", {}],
    ["a wrong Bearer", { authorization: "Bearer model-server-test-kez" }],
    ["the key under another scheme", { authorization: "Basic model-server-test-key" }],
  ])("answers 401 to %s", async (_name, headers) => {
    const { response, body } = await embed(server, { input: "hello" }, headers);
    expect(response.status).toBe(401);
    expect(body.error).toMatchObject({ code: "unauthorized", type: "authentication_error" });
  });

  it("serves the right Bearer", async () => {
    const { response, body } = await embed(server, { input: ["hello", "world"] }, authorization);
    expect(response.status).toBe(200);
    expect(body.data).toHaveLength(2);
  });

  it("applies SVC_MODEL_MAX_INPUTS and SVC_MODEL_MAX_INPUT_CHARACTERS", async () => {
    const many = await embed(server, { input: ["a", "b", "c"] }, authorization);
    expect([many.response.status, many.body.error?.code]).toEqual([400, "too_many_inputs"]);
    const long = await embed(server, { input: "x".repeat(101) }, authorization);
    expect([long.response.status, long.body.error?.code]).toEqual([400, "input_too_long"]);
  });

  it("stops reading a body larger than any valid request could be, with 413", async () => {
    // Two inputs of 100 characters fit in a few kilobytes; this is 64 KiB.
    const { response, body } = await embed(server, { input: ["y".repeat(65_536)] }, authorization);
    expect(response.status).toBe(413);
    expect(body.error?.code).toBe("body_too_large");
  });
});

describe("start-up", () => {
  it("refuses to start on a device that this machine does not have, saying why", async () => {
    const failure = await startModelServer({ environment: { SVC_MODEL_DEVICE: "cuda" } }).then(
      async (server) => {
        await server.stop();
        throw new Error("the model server started on a missing CUDA device");
      },
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ModelServerExited);
    expect((failure as ModelServerExited).code).not.toBe(0);
    expect((failure as ModelServerExited).output).toMatch(/^model server: SVC_MODEL_DEVICE=cuda needs/m);
    expect((failure as ModelServerExited).output).not.toContain("Traceback");
  });

  it("with SVC_EAGER_LOAD, refuses to start when the model cannot be loaded", async () => {
    const failure = await startModelServer({
      environment: { SVC_EAGER_LOAD: "true", SVC_MODEL_EMBEDDING_MODEL: "/nonexistent/model" },
    }).then(
      async (server) => {
        await server.stop();
        throw new Error("the model server started without its model");
      },
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ModelServerExited);
    expect((failure as ModelServerExited).output).toContain("the model could not be loaded");
  });

  it("loading lazily, answers 503 while the model cannot be loaded and stays up", async () => {
    const server = await startModelServer({
      environment: { SVC_MODEL_EMBEDDING_MODEL: "/nonexistent/model" },
    });
    try {
      const { response, body } = await embed(server, { input: "hello" });
      expect(response.status).toBe(503);
      expect(body.error).toMatchObject({ code: "model_unavailable", type: "server_error" });
      expect(await (await fetch(`${server.url}/health`)).json()).toMatchObject({
        status: "ok",
        embedding_loaded: false,
      });
      expect((await fetch(`${server.url}/health/ready`)).status).toBe(503);
    } finally {
      await server.stop();
    }
  });

  it("starts through start.sh on SVC_MODEL_HOST and SVC_MODEL_PORT", async () => {
    const server = await startModelServer({
      command: ["bash", resolve(modelServerFolder, "start.sh")],
      environment: { SVC_MODEL_HOST: "127.0.0.1", SVC_MODEL_VENV: testEnvironment },
    });
    try {
      const health = await (await fetch(`${server.url}/health`)).json();
      expect(health).toMatchObject({ status: "ok", device: "cpu" });
      expect(server.output()).toContain(`127.0.0.1:${server.port}`);
    } finally {
      await server.stop();
    }
  });
});
