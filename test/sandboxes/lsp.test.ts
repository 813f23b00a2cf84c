/**
 * Language servers in real local sandboxes (docs/sandboxes.md#language-servers): pyright and
 * typescript-language-server from the project's install, run inside the sandbox on its
 * /usr/bin/node, answer completions; the per-sandbox cap holds; an exec sees none of their
 * install; destroying the sandbox, its expiry and a stopping server each leave no process of the
 * sandbox's host uid.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reapExpiredSandboxes } from "../../core/index.ts";
import { createFakeClock } from "../doubles/fake-clock.ts";
import type { TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  errorDetails,
  type SandboxClient,
} from "./sandbox-client.ts";

const run = promisify(execFile);

interface CompletionItem {
  label: string;
  kind?: number;
}

/** The host processes of a uid, as `ps` lists them (command names). */
async function processesOf(uid: number): Promise<string[]> {
  try {
    const { stdout } = await run("ps", ["-u", String(uid), "-o", "comm="]);
    return stdout.split("\n").filter((line) => line.trim() !== "");
  } catch (error) {
    // ps exits 1 when the uid has no process.
    if ((error as { code?: number }).code === 1) return [];
    throw error;
  }
}

describe("language servers in local sandboxes", () => {
  let test: TestPlatform;
  let client: SandboxClient;
  let sessionId: string;
  const lsp = <T>(suffix: string, json: Record<string, unknown> = {}) =>
    client.sendJson<T>(`/v1/sandboxes/${sessionId}/lsp/${suffix}`, { method: "POST", json });
  const start = async (language: string) => {
    const started = await lsp<{ lsp_id: string }>("start", { language });
    expect([started.status, started.body]).toEqual([
      200,
      { lsp_id: expect.stringMatching(/^lsp_[0-9a-f]{32}$/) },
    ]);
    return started.body.lsp_id;
  };
  const complete = async (lspId: string, path: string, content: string, line: number, character: number) => {
    const opened = await lsp(`${lspId}/open`, { path, content });
    expect([opened.status, opened.body]).toEqual([200, { status: "opened" }]);
    const completion = await lsp<{ items: CompletionItem[] }>(`${lspId}/completion`, {
      path,
      line,
      character,
    });
    expect(completion.status).toBe(200);
    return completion.body.items;
  };

  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite");
    client = await createSandboxClient(test);
    // Four servers need the room of a medium sandbox (memory and processes).
    sessionId = (await client.createActive({ size: "medium" })).id;
  });
  afterAll(() => test.close());

  it("completes a string's methods in TypeScript after `s.`", { timeout: 120_000 }, async () => {
    const lspId = await start("typescript");
    const items = await complete(lspId, "main.ts", 'const s = "x"; s.', 0, 17);
    expect(items.map((item) => item.label)).toContain("toUpperCase");
    // Raw LSP items: the kind is the protocol's number (2 = Method).
    expect(items.find((item) => item.label === "toUpperCase")?.kind).toBe(2);
    // A second open replaces the text: completions follow the new content.
    const again = await complete(lspId, "main.ts", "const n = 1;\nn.", 1, 2);
    expect(again.map((item) => item.label)).toContain("toFixed");
  });

  it("completes os.path in Python after `os.`", { timeout: 120_000 }, async () => {
    const lspId = await start("python");
    const items = await complete(lspId, "/workspace/main.py", "import os; os.", 0, 14);
    expect(items.map((item) => item.label)).toContain("path");
  });

  it("shows the servers' install to the servers only: an exec sees an empty directory", async () => {
    const listed = await client.exec(sessionId, "ls -A /cairn/lsp/node_modules; echo done");
    expect(listed.body).toMatchObject({ exit_code: 0, stdout: "done\n" });
  });

  it("refuses a fifth server with 429 lsp_limit_reached {limit: 4}", { timeout: 240_000 }, async () => {
    // Two run from the tests above; two more fill the sandbox.
    await start("python");
    const last = await start("javascript");
    const refused = await lsp("start", { language: "python" });
    expect([refused.status, errorCode(refused.body), errorDetails(refused.body)]).toEqual([
      429,
      "lsp_limit_reached",
      { limit: 4 },
    ]);
    const stopped = await lsp(`${last}/stop`);
    expect([stopped.status, stopped.body]).toEqual([200, { status: "stopped" }]);
    expect((await lsp(`${last}/stop`)).status).toBe(404);
  });

  it("leaves no process of the sandbox's uid once it is destroyed", { timeout: 60_000 }, async () => {
    const record = JSON.parse(
      await readFile(join(test.dataDir, "sandboxes", sessionId, "sandbox.json"), "utf8"),
    ) as { uid: number };
    expect(await processesOf(record.uid)).toContain("node");
    expect((await client.destroy(sessionId)).status).toBe(204);
    expect(await processesOf(record.uid)).toEqual([]);
    expect(test.platform.languageServers.count(sessionId)).toBe(0);
  });
});

describe("a stopping Cairn server", () => {
  it("leaves no language-server process behind", { timeout: 120_000 }, async () => {
    const test = await createSandboxPlatform("sqlite");
    let closed = false;
    try {
      const client = await createSandboxClient(test);
      const { id } = await client.createActive();
      const started = await client.sendJson<{ lsp_id: string }>(`/v1/sandboxes/${id}/lsp/start`, {
        method: "POST",
        json: { language: "python" },
      });
      expect(started.status).toBe(200);
      const { uid } = JSON.parse(
        await readFile(join(test.dataDir, "sandboxes", id, "sandbox.json"), "utf8"),
      ) as {
        uid: number;
      };
      expect(await processesOf(uid)).toContain("node");
      await test.close();
      closed = true;
      expect(await processesOf(uid)).toEqual([]);
    } finally {
      if (!closed) await test.close();
    }
  });
});

describe("an expired sandbox", () => {
  it("loses its language servers when the reaper ends it", { timeout: 120_000 }, async () => {
    const clock = createFakeClock(new Date());
    const test = await createSandboxPlatform("sqlite", { clock });
    try {
      const client = await createSandboxClient(test);
      const { id } = await client.createActive({ lifetime_minutes: 5 });
      const started = await client.sendJson(`/v1/sandboxes/${id}/lsp/start`, {
        method: "POST",
        json: { language: "python" },
      });
      expect(started.status).toBe(200);
      const { uid } = JSON.parse(
        await readFile(join(test.dataDir, "sandboxes", id, "sandbox.json"), "utf8"),
      ) as {
        uid: number;
      };
      expect(await processesOf(uid)).toContain("node");
      clock.advance(6 * 60_000);
      expect(await reapExpiredSandboxes(test.platform)).toBe(1);
      expect(test.platform.languageServers.count(id)).toBe(0);
      expect(await processesOf(uid)).toEqual([]);
    } finally {
      await test.close();
    }
  });
});
