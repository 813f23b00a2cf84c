/**
 * `cairn mcp serve --data-dir DIR`: the one place the CLI loads the server, and only in this mode
 * (test/cli/no-server-code.test.ts allows this import and no other). Every other command talks to
 * a server over HTTP.
 */
import { enableCompileCache } from "node:module";
import { join } from "node:path";
import type { ResultMode } from "../transports/mcp/profiles.ts";

export async function serveInProcess(options: {
  dataDir: string;
  tools: string;
  results?: ResultMode;
}): Promise<void> {
  // As the server's entry does (platform/serve.ts): start-up is mostly compiling modules, which
  // Node caches on disk after the first start.
  enableCompileCache(join(import.meta.dirname, "../node_modules/.cache/cairn-compile"));
  const { serveRegistryOverStdio } = await import("../platform/serve-stdio.ts");
  await serveRegistryOverStdio({ ...options, environment: process.env });
}
