/**
 * The model server as a real process: eager loading, the API key and the request-limit settings,
 * and how it starts (or refuses to): a missing device, a model that cannot be loaded, requests
 * that arrive while the model loads, and `npm run model-server`'s start script.
 */
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cosine,
  embed,
  ensureModelServerEnvironment,
  ModelServerExited,
  modelServerFolder,
  type RunningModelServer,
  setupTimeout,
  startModelServer,
  testEnvironment,
} from "./model-server-process.ts";

beforeAll(() => ensureModelServerEnvironment(), setupTimeout);

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

  it("loading lazily, serves requests that arrive together before the model is loaded", async () => {
    const server = await startModelServer();
    try {
      const texts = ["first together", "second together", "first together", "third together"];
      const answers = await Promise.all(texts.map((text) => embed(server, { input: text })));
      expect(answers.map(({ response }) => response.status)).toEqual([200, 200, 200, 200]);
      const [first, , again] = answers.map(({ body }) => body.data[0].embedding);
      expect(cosine(first, again)).toBeGreaterThan(0.9999);
      expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);
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
