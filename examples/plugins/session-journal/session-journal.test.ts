/**
 * The session-journal plugin in a real platform (SQLite, real sandboxes): a destroyed sandbox's
 * session is in memory for the next recall, tagged with the sandbox id; a second delivery of the
 * same event (delivery is at least once) adds nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxDestroyedEvent } from "../../../core/plugin.ts";
import { eventually } from "../../../test/support/eventually.ts";
import {
  createAccountWithKey,
  createTestPlatform,
  type TestPlatform,
} from "../../../test/support/platforms.ts";
import { journalEntries } from "./index.ts";

const event: SandboxDestroyedEvent = {
  sandbox_id: "sbx-1",
  account_id: "account-1",
  reason: "destroyed",
  created_at: "2026-05-20T09:00:00.000Z",
  ended_at: "2026-05-20T09:10:00.000Z",
  commands: [
    { command: "npm   test", exit_code: 1, timed_out: false, at: "2026-05-20T09:01:00.000Z" },
    { command: "sleep 999", exit_code: 137, timed_out: true, at: "2026-05-20T09:02:00.000Z" },
  ],
  files: [
    { path: "src/app.ts", operation: "edit", at: "2026-05-20T09:03:00.000Z" },
    { path: "src/app.ts", operation: "edit", at: "2026-05-20T09:04:00.000Z" },
  ],
};

describe("journalEntries", () => {
  it("writes a summary, a line per command with its outcome, and a line per touched file", () => {
    expect(journalEntries(event)).toEqual([
      "Last session journal: sandbox session sbx-1 (destroyed) ran from 2026-05-20T09:00:00.000Z to 2026-05-20T09:10:00.000Z and ran 2 commands (2 failed) and touched 1 files: src/app.ts.",
      "In sandbox session sbx-1 the command `npm test` exited with code 1 at 2026-05-20T09:01:00.000Z.",
      "In sandbox session sbx-1 the command `sleep 999` timed out at 2026-05-20T09:02:00.000Z.",
      "In sandbox session sbx-1 the file src/app.ts was edited at 2026-05-20T09:04:00.000Z.",
    ]);
  });
});

describe("the session-journal plugin", () => {
  let test: TestPlatform;
  let account: Awaited<ReturnType<typeof createAccountWithKey>>;
  beforeAll(async () => {
    test = await createTestPlatform("sqlite", { environment: { SVC_PLUGINS: import.meta.dirname } });
    account = await createAccountWithKey(test);
  });
  afterAll(() => test?.close());

  const request = async (path: string, init: { method?: string; json?: unknown } = {}) => {
    const response = await test.request(path, { ...init, credential: account.key });
    const text = await response.text();
    // biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field; the assertions check their shape.
    return { status: response.status, body: (text ? JSON.parse(text) : null) as any };
  };
  const ofSession = async (id: string) => {
    const listed = await request("/v1/memory?limit=100");
    return (listed.body as Array<{ source_session_id: string | null; content: string }>).filter(
      (memory) => memory.source_session_id === id,
    );
  };

  it("puts a destroyed sandbox's session into memory, which the next recall finds", async () => {
    const created = await request("/v1/sandboxes", { method: "POST", json: {} });
    const id = created.body.id as string;
    await request(`/v1/sandboxes/${id}/exec`, { method: "POST", json: { command: "ls -la /workspace" } });
    await request(`/v1/sandboxes/${id}/files`, {
      method: "POST",
      json: { path: "deploy.sh", content: "echo\n" },
    });
    expect((await request(`/v1/sandboxes/${id}`, { method: "DELETE" })).status).toBe(204);

    // Delivered once its event leaves the queue: every memory and the store's summary are written.
    await eventually(async () =>
      (await test.platform.storage.pluginEvents.count()) === 0 ? true : undefined,
    );
    const recalled = await request(
      `/v1/memory/search?q=${encodeURIComponent("what did the last session do")}`,
    );
    expect(recalled.body.memories[0].content).toContain(`Last session journal: sandbox session ${id}`);
    const byFile = await request("/v1/memory/search?q=deploy.sh");
    expect(byFile.body.memories[0]).toMatchObject({ source_session_id: id });
    expect(byFile.body.memories[0].content).toContain("the file deploy.sh was created");
    const recent = await request("/v1/plugins/session-journal/recent", { method: "POST", json: {} });
    expect(recent.body.sessions).toEqual([
      expect.objectContaining({ sandbox_id: id, commands: 1, failed_commands: 0, files: ["deploy.sh"] }),
    ]);
  }, 60_000);

  it("writes nothing twice when the same event is delivered twice (delivery is at least once)", async () => {
    const repeated = {
      ...event,
      sandbox_id: crypto.randomUUID(),
      account_id: account.accountId,
    };
    for (let delivery = 0; delivery < 2; delivery++) {
      await test.platform.plugins.emit("sandbox.destroyed", account.accountId, repeated);
      await eventually(async () =>
        (await test.platform.storage.pluginEvents.count()) === 0 ? true : undefined,
      );
    }
    const written = (await ofSession(repeated.sandbox_id)).map((memory) => memory.content);
    expect(written.toSorted()).toEqual(journalEntries(repeated).toSorted());
  }, 60_000);
});
