import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "core/**/*.test.ts",
      "transports/**/*.test.ts",
      "plugins/**/*.test.ts",
      "platform/**/*.test.ts",
      "test/**/*.test.ts",
      "cli/**/*.test.ts",
      "sdks/js/**/*.test.ts",
    ],
    exclude: ["**/node_modules/**", "test/bench/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
