/**
 * A plugin that lives outside the checkout imports Cairn's plugin entry by package name,
 * `cairn/plugin` (the root package's `exports`), once Cairn is in its node_modules (`npm install
 * /path/to/cairn` links it there); the server loads it from its path on Node and on Deno.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, serverRuntimes, signUpWithKey, startServer } from "../support/processes.ts";

const root = resolve(import.meta.dirname, "../..");

const pluginSource = `import { definePlugin, defineTool, z } from "cairn/plugin";

const greet = defineTool({
  name: "greet",
  title: "Greet",
  description: "Greets someone by name.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({ who: z.string().describe("Whom to greet") }),
  output: z.object({ text: z.string() }),
  bucket: { name: "hello_ops", perMinute: 60 },
  async handler(context, input) {
    return { text: \`hello \${input.who} from \${context.accountId === null ? "nobody" : "an account"}\` };
  },
});

export default definePlugin({ name: "hello", version: "1.0.0", tools: [greet] });
`;

let outside: string;
beforeAll(async () => {
  outside = await mkdtemp(join(tmpdir(), "cairn-outside-plugin-"));
  const plugin = join(outside, "cairn-plugin-hello");
  await mkdir(join(plugin, "node_modules"), { recursive: true });
  await writeFile(
    join(plugin, "package.json"),
    JSON.stringify({ name: "cairn-plugin-hello", version: "1.0.0", type: "module", main: "index.ts" }),
  );
  await writeFile(join(plugin, "index.ts"), pluginSource);
  // What `npm install /path/to/cairn` leaves: a link to the checkout.
  await symlink(root, join(plugin, "node_modules/cairn"), "dir");
});
afterAll(() => rm(outside, { recursive: true, force: true }));

describe.each(serverRuntimes)("a plugin outside the checkout on $name", (runtime) => {
  let server: RunningServer;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "cairn-outside-data-"));
    server = await startServer(runtime.command, runtime.args, {
      SVC_DATA_DIR: dataDir,
      SVC_LOG_LEVEL: "warn",
      SVC_PLUGINS: join(outside, "cairn-plugin-hello"),
    });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("imports cairn/plugin and serves its tool", async () => {
    const { key } = await signUpWithKey(server.baseUrl);
    const response = await fetch(`${server.baseUrl}/v1/plugins/hello/greet`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ who: runtime.name }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ text: `hello ${runtime.name} from an account` });
  });
});
