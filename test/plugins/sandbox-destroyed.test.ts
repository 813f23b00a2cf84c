/**
 * `sandbox.destroyed` (docs/plugins.md#sandbox-destroyed) on both databases: a sandbox the reaper
 * ends at its expiry emits it too, with the session's commands (text, exit code) and the files
 * touched through the file tools (create, edit, view; listing and searching are not touches);
 * the activity log keeps only the newest entries of each kind.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reapExpiredSandboxes } from "../../core/index.ts";
import type { SandboxDestroyedEvent } from "../../core/plugin.ts";
import { createFakeClock } from "../doubles/fake-clock.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  type SandboxClient,
} from "../sandboxes/sandbox-client.ts";
import { eventually } from "../support/eventually.ts";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";

const probe = join(import.meta.dirname, "fixtures/probe");
const minute = 60_000;

describe.each(storageTargets)("sandbox.destroyed on %s", (target) => {
  const clock = createFakeClock(new Date("2026-05-20T09:00:00Z"));
  let test: TestPlatform;
  let client: SandboxClient;
  beforeAll(async () => {
    test = await createSandboxPlatform(target, { clock, environment: { SVC_PLUGINS: probe } });
    client = await createSandboxClient(test);
  });
  afterAll(() => test?.close());

  const destroyedEvent = (id: string) =>
    eventually(async () => {
      const read = await client.sendJson<{ entries: Array<{ value: SandboxDestroyedEvent }> }>(
        "/v1/plugins/probe/read",
        { method: "POST", json: { key: `destroyed:${id}` } },
      );
      return read.body.entries[0]?.value;
    });

  it("is emitted for a sandbox the reaper ends, with its commands and touched files", async () => {
    const session = await client.createActive({ lifetime_minutes: 5 });
    const files = (suffix: string, json: Record<string, unknown>) =>
      client.sendJson(`/v1/sandboxes/${session.id}/files${suffix}`, { method: "POST", json });
    expect((await client.exec(session.id, "echo ready")).body.exit_code).toBe(0);
    expect((await files("", { path: "notes/plan.md", content: "step one\n" })).status).toBe(200);
    expect(
      (await files("/str-replace", { path: "notes/plan.md", old_str: "one", new_str: "two" })).status,
    ).toBe(200);
    expect((await files("/view", { path: "notes/plan.md" })).status).toBe(200);
    expect((await files("/ls", { path: "notes" })).status).toBe(200);
    expect((await client.exec(session.id, "cat missing.txt")).body.exit_code).not.toBe(0);

    clock.advance(5 * minute + 1);
    expect(await reapExpiredSandboxes(test.platform)).toBe(1);
    const event = await destroyedEvent(session.id);
    expect(event).toMatchObject({
      sandbox_id: session.id,
      account_id: client.accountId,
      reason: "expired",
      created_at: "2026-05-20T09:00:00.000Z",
      ended_at: "2026-05-20T09:05:00.000Z",
    });
    expect(event.commands.map((command) => [command.command, command.exit_code === 0])).toEqual([
      ["echo ready", true],
      ["cat missing.txt", false],
    ]);
    expect(event.files.map((file) => [file.path, file.operation])).toEqual([
      ["notes/plan.md", "create"],
      ["notes/plan.md", "edit"],
      ["notes/plan.md", "view"],
    ]);
  });

  it("is emitted by destroy_sandbox, and the activity log is gone with it", async () => {
    const session = await client.createActive();
    await client.exec(session.id, "true");
    expect((await client.destroy(session.id)).status).toBe(204);
    const event = await destroyedEvent(session.id);
    expect(event).toMatchObject({
      reason: "destroyed",
      commands: [expect.objectContaining({ command: "true" })],
    });
    expect(await test.platform.storage.sandboxActivity.list(session.id)).toEqual([]);
  });

  it("keeps only the newest entries of each kind", async () => {
    const session = await client.createActive();
    const log = test.platform.storage.sandboxActivity;
    for (let index = 1; index <= 5; index++) {
      const at = new Date(Date.UTC(2026, 4, 20, 9, 0, index));
      await log.record(
        session.id,
        { kind: "command", command: `step ${index}`, exitCode: 0, timedOut: false, at },
        3,
      );
      await log.record(session.id, { kind: "file", path: `file-${index}.txt`, operation: "create", at }, 2);
    }
    const kept = await log.list(session.id);
    expect(
      kept.map((entry) =>
        entry.kind === "command" ? entry.command : entry.kind === "file" ? entry.path : "",
      ),
    ).toEqual(["step 3", "step 4", "file-4.txt", "step 5", "file-5.txt"]);
    expect((await client.destroy(session.id)).status).toBe(204);
  });
});
