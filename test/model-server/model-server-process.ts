/**
 * Runs the Python model server as a real process for the tests and the benchmark: creates its
 * environment with plugins/model-server/setup.sh when needed, starts uvicorn on a free port and
 * waits until it answers (or fails with what the process printed).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { freePort } from "../support/processes.ts";

export const repositoryRoot = resolve(import.meta.dirname, "../..");
export const modelServerFolder = resolve(repositoryRoot, "plugins/model-server");
export const testEnvironment = resolve(repositoryRoot, ".test-data/model-server-venv");
export const testPython = resolve(testEnvironment, "bin/python");
/** A cold set-up takes about 25 s on a busy 2-core machine; the hook allows far more. */
export const setupTimeout = 300_000;

/** Creates or reuses the test environment (a few seconds when current, well under 3 minutes cold). */
export function ensureModelServerEnvironment(): void {
  const setup = spawnSync("bash", [resolve(modelServerFolder, "setup.sh")], { encoding: "utf8" });
  if (setup.status !== 0) throw new Error(`setup.sh failed:\n${setup.stdout}\n${setup.stderr}`);
}

export interface RunningModelServer {
  url: string;
  port: number;
  process: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  environment?: Record<string, string>;
  /** The command to run instead of uvicorn directly (for start.sh); the port is in SVC_MODEL_PORT. */
  command?: string[];
}

export async function startModelServer(options: StartOptions = {}): Promise<RunningModelServer> {
  const port = await freePort();
  const command = options.command ?? [
    testPython,
    "-m",
    "uvicorn",
    "--factory",
    "cairn_model_server.app:create_app",
    "--app-dir",
    modelServerFolder,
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--no-access-log",
  ];
  const child = spawn(command[0] as string, command.slice(1), {
    cwd: repositoryRoot,
    env: { ...process.env, SVC_MODEL_PORT: String(port), ...options.environment },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  const url = `http://127.0.0.1:${port}`;
  const server: RunningModelServer = {
    url,
    port,
    process: child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
  for (let attempt = 0; attempt < 600; attempt++) {
    if (child.exitCode !== null) throw new ModelServerExited(child.exitCode, output);
    try {
      if ((await fetch(`${url}/health`)).ok) return server;
    } catch {
      // not listening yet
    }
    await new Promise((wait) => setTimeout(wait, 100));
  }
  await server.stop();
  throw new Error(`the model server did not answer /health within 60 s:\n${output}`);
}

export class ModelServerExited extends Error {
  readonly code: number;
  readonly output: string;
  constructor(code: number, output: string) {
    super(`the model server exited with ${code}:\n${output}`);
    this.code = code;
    this.output = output;
  }
}

export interface EmbeddingResponse {
  object: string;
  data: { object: string; embedding: number[]; index: number }[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

export async function embed(
  server: RunningModelServer,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ response: Response; body: EmbeddingResponse & { error?: { code: string; type: string } } }> {
  const response = await fetch(`${server.url}/v1/embeddings`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { response, body: await response.json() };
}

export function cosine(left: number[], right: number[]): number {
  let dot = 0;
  let leftNorm = 0;
  let rightNorm = 0;
  for (let position = 0; position < left.length; position++) {
    const a = left[position];
    const b = right[position];
    dot += a * b;
    leftNorm += a * a;
    rightNorm += b * b;
  }
  return dot / Math.sqrt(leftNorm * rightNorm);
}
