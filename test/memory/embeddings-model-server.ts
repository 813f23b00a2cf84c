/**
 * Global set-up of the "memory (embeddings)" vitest project: starts ONE real model server for the
 * whole run (it holds no state, so every test file and worker can share it) and hands its URL to
 * the test platforms, which then run with SVC_MEMORY_EMBEDDINGS_ENABLED=true (see
 * test/support/platforms.ts `embeddingsMode`). Stopped when the run ends.
 */
import type { TestProject } from "vitest/node";
import { ensureModelServerEnvironment, startModelServer } from "../model-server/model-server-process.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The shared model server's base URL (no /v1), in the embeddings project only. */
    modelServerUrl: string;
  }
}

export default async function startSharedModelServer(project: TestProject) {
  ensureModelServerEnvironment();
  const server = await startModelServer();
  project.provide("modelServerUrl", server.url);
  return () => server.stop();
}
