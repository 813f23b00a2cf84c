import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// The JavaScript SDK's workspace package resolves to its TypeScript source under this condition
// (sdks/js/package.json), and to its built dist/ everywhere else: tests never run a stale build.
const sourceConditions = ["cairn-source", "module", "node", "development|production"];

// The memory suite runs twice: lexically in "default", and again with semantic search on against
// one real model server (test/memory/embeddings-model-server.ts; test/support/platforms.ts reads
// CAIRN_TEST_EMBEDDINGS). The embedder's own suites start their own model servers and are left out.
const memoryEmbeddings = {
  name: "memory (embeddings)",
  include: ["test/memory/**/*.test.ts"],
  exclude: [
    "**/node_modules/**",
    "test/memory/embedder.test.ts",
    "test/memory/embeddings-storage.test.ts",
    "test/memory/semantic-search.test.ts",
  ],
  env: { CAIRN_TEST_EMBEDDINGS: "on" },
  globalSetup: ["test/memory/embeddings-model-server.ts"],
  // Every recall here first embeds the writes before it, on the one model server both workers
  // share with PostgreSQL and each other on two cores: a test of ten recalls took over 30 s on a
  // busy CI host (and 2 s on an idle one). The timeout only catches a hang.
  testTimeout: 90_000,
};

export default defineConfig({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // A test file mostly waits (on servers, sandboxes, PostgreSQL, the other languages' runners),
    // so one file per core: vitest's default leaves one core idle, which on two cores ran the
    // suite one file at a time (22 minutes here against 12).
    maxWorkers: availableParallelism(),
    projects: [
      {
        extends: true,
        test: {
          name: "default",
          include: [
            "core/**/*.test.ts",
            "transports/**/*.test.ts",
            "plugins/**/*.test.ts",
            "lib/**/*.test.ts",
            "platform/**/*.test.ts",
            "test/**/*.test.ts",
            "cli/**/*.test.ts",
            "sdks/js/**/*.test.ts",
            "examples/**/*.test.ts",
          ],
          exclude: ["**/node_modules/**", "test/bench/**"],
        },
      },
      { extends: true, test: memoryEmbeddings },
    ],
  },
});
