/**
 * Built-in ports come from plugins, and a plugin replaces one by offering its name
 * (docs/plugins.md#ports): every folder of plugins/ is a plugin the composition root lists, and a
 * plugin in SVC_PLUGINS offering the in-process rate-limit store ("memory") is the store every
 * request then draws from.
 */
import { readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPlugin } from "../../core/index.ts";
import { defaultPlugins } from "../../platform/default-plugins.ts";
import { createTestPlatform, type TestPlatform } from "../support/platforms.ts";

const root = resolve(import.meta.dirname, "../..");

describe("the built-in plugins", () => {
  it("are every TypeScript folder of plugins/, each default-exporting its plugin.ts, all listed by the composition root", async () => {
    const folders: string[] = [];
    for (const entry of await readdir(join(root, "plugins"), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const hasTypeScript = (await readdir(join(root, "plugins", entry.name))).some((name) =>
        name.endsWith(".ts"),
      );
      // plugins/model-server is the Python embeddings server the embeddings plugin talks to.
      if (hasTypeScript) folders.push(entry.name);
    }
    const listed: unknown[] = [];
    for (const folder of folders) {
      const entry = join(root, "plugins", folder, "plugin.ts");
      expect((await stat(entry)).isFile()).toBe(true);
      const plugin = ((await import(entry)) as { default: unknown }).default;
      expect(isPlugin(plugin)).toBe(true);
      expect((plugin as { name: string }).name).toBe(folder);
      listed.push(plugin);
    }
    expect(new Set(defaultPlugins)).toEqual(new Set(listed));
  });
});

describe("a plugin offering a built-in port's name", () => {
  let test: TestPlatform;
  beforeAll(async () => {
    test = await createTestPlatform("sqlite", {
      environment: { SVC_PLUGINS: "./test/plugins/fixtures/closed-rate-limits" },
    });
  });
  afterAll(() => test?.close());

  it("replaces it: every request draws from the plugin's store", async () => {
    const response = await test.request("/v1/auth/signup", {
      method: "POST",
      json: { email: "ports@example.com", password: "a long enough password" },
    });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("7");
    expect((await response.json()).error.code).toBe("rate_limited");
  });
});
