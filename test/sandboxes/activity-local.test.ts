/**
 * A sandbox's activity feed on the real local runtime (docs/sandboxes.md#activity): an exec is
 * recorded with its exit code, a file write with its size and never its content, both with the
 * key that made them; `GET …/log` pages it newest first; `GET …/watch` streams a new entry live;
 * each takeover-terminal viewer's open and close is recorded with its key, never its keystrokes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/eventually.ts";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import { openSocket, serveOverNode } from "./preview-terminal-support.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  type SandboxClient,
} from "./sandbox-client.ts";

interface ActivityOut {
  seq: number;
  kind: string;
  operation: string;
  subject: string;
  exit_code: number | null;
  bytes: number | null;
  account_id: string;
  key_id: string | null;
  detail: string | null;
}
interface LogOut {
  session_id: string;
  total: number;
  entries: ActivityOut[];
}

describe.each(storageTargets)("the activity feed of local sandboxes on %s", (target) => {
  let test: TestPlatform;
  let client: SandboxClient;
  let served: Awaited<ReturnType<typeof serveOverNode>>;
  beforeAll(async () => {
    test = await createSandboxPlatform(target);
    client = await createSandboxClient(test);
    served = await serveOverNode(test);
  });
  afterAll(async () => {
    await served?.close();
    await test?.close();
  });

  it("records an exec with its exit code and a file write with its size, not its content", async () => {
    const session = await client.createActive();
    expect((await client.exec(session.id, "echo hi; exit 3")).body.exit_code).toBe(3);
    const secretContent = "the-content-never-logged-0123456789";
    const written = await client.sendJson(`/v1/sandboxes/${session.id}/files`, {
      method: "POST",
      json: { path: "notes/a.txt", content: secretContent },
    });
    expect(written.status).toBe(200);

    const log = await client.sendJson<LogOut>(`/v1/sandboxes/${session.id}/log?limit=10&offset=0`);
    expect(log.status).toBe(200);
    expect(log.body.total).toBe(2);
    const [file, command] = log.body.entries;
    expect(command).toMatchObject({
      kind: "command",
      operation: "exec",
      subject: "echo hi; exit 3",
      exit_code: 3,
      bytes: 3,
      account_id: client.accountId,
      key_id: client.keyId,
    });
    expect(file).toMatchObject({
      kind: "file",
      operation: "create",
      bytes: secretContent.length,
      exit_code: null,
    });
    expect(file.subject).toContain("notes/a.txt");
    expect(file.seq).toBeGreaterThan(command.seq);
    expect(JSON.stringify(log.body)).not.toContain(secretContent);

    const second = await client.sendJson<LogOut>(`/v1/sandboxes/${session.id}/log?limit=1&offset=1`);
    expect(second.body.entries.map((entry) => entry.seq)).toEqual([command.seq]);
    const stranger = await createSandboxClient(test);
    const hidden = await stranger.sendJson(`/v1/sandboxes/${session.id}/log`);
    expect([hidden.status, errorCode(hidden.body)]).toEqual([404, "not_found"]);
    expect((await client.destroy(session.id)).status).toBe(204);
  });

  it("streams a new entry live over the watch route", async () => {
    const session = await client.createActive();
    await client.exec(session.id, "true");
    const controller = new AbortController();
    const response = await test.request(`/v1/sandboxes/${session.id}/watch`, {
      credential: client.key,
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    // The watch starts after what was there: the earlier `true` is not replayed.
    const later = client.exec(session.id, "echo live");
    let text = "";
    while (!text.includes("echo live")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    await later;
    controller.abort();
    await reader.cancel().catch(() => {});
    const events = text.split("\n\n").filter((event) => event.startsWith("id: "));
    expect(events).toHaveLength(1);
    const data = JSON.parse(events[0].split("\ndata: ")[1]) as ActivityOut;
    expect(data).toMatchObject({ kind: "command", subject: "echo live", exit_code: 0, key_id: client.keyId });
    expect(events[0]).toContain("event: activity");
    expect((await client.destroy(session.id)).status).toBe(204);
  });

  it("refuses a watch resumed from anything but an entry's seq, naming where it came from", async () => {
    const session = await client.createActive();
    const watch = `/v1/sandboxes/${session.id}/watch`;
    for (const [path, headers, loc] of [
      [`${watch}?since=-1`, {}, ["query", "since"]],
      [watch, { "Last-Event-ID": "1e3" }, ["header", "Last-Event-ID"]],
    ] as const) {
      const response = await test.request(path, { credential: client.key, headers });
      const body = await response.json();
      expect([response.status, body.error.code, body.error.details]).toEqual([
        422,
        "validation_error",
        [expect.objectContaining({ type: "int_parsing", loc })],
      ]);
    }
    expect((await client.destroy(session.id)).status).toBe(204);
  });

  it("records each takeover-terminal viewer's open and close, never its keystrokes", {
    timeout: 60_000,
  }, async () => {
    const sandbox = (await client.createActive()).id;
    const url = (query: string) =>
      `${served.origin.replace("http:", "ws:")}/v1/sandboxes/${sandbox}/takeover?${query}`;
    const terminalEntries = async () =>
      (await client.sendJson<LogOut>(`/v1/sandboxes/${sandbox}/log?limit=50&offset=0`)).body.entries
        .filter((entry) => entry.kind === "terminal")
        .reverse();
    const entriesOnceThere = (count: number) =>
      eventually(async () => {
        const entries = await terminalEntries();
        return entries.length >= count ? entries : undefined;
      });

    const minted = await client.sendJson<{ token: string }>(`/v1/sandboxes/${sandbox}/takeover-token`, {
      method: "POST",
      json: {},
    });
    const writer = openSocket(url(`token=${minted.body.token}`));
    await writer.opened;
    const typed = "echo typed-secret-$((40+2))\n";
    writer.socket.send(Buffer.from(typed));
    await writer.waitFor(/typed-secret-42/);
    const observer = openSocket(url("read_only=true"), { Authorization: `Bearer ${client.key}` });
    await observer.opened;
    await entriesOnceThere(2);
    // The observer leaves first (its own close), then the shell exits, which ends the writer's stay.
    observer.socket.close();
    await entriesOnceThere(3);
    writer.socket.send(Buffer.from("exit\n"));
    expect((await writer.closed).code).toBe(1000);

    // A later viewer's stay comes after the writer's single close: its socket closing adds none.
    const later = openSocket(url(""), { Authorization: `Bearer ${client.key}` });
    await later.opened;
    await entriesOnceThere(5);
    later.socket.close();
    const entries = await entriesOnceThere(6);
    expect(entries.map((entry) => [entry.operation, entry.detail?.replace(/^\d+ ms$/, "N ms")])).toEqual([
      ["open", "read-write"],
      ["open", "read-only"],
      ["close", "N ms"],
      ["close", "N ms"],
      ["open", "read-write"],
      ["close", "N ms"],
    ]);
    for (const entry of entries) {
      expect(entry).toMatchObject({
        subject: "/bin/sh -i",
        account_id: client.accountId,
        key_id: client.keyId,
      });
    }
    // The observer typed nothing; the writer's bytes are counted, never kept.
    expect(entries.slice(2, 4).map((entry) => entry.bytes)).toEqual([0, typed.length + "exit\n".length]);
    expect(JSON.stringify(entries)).not.toContain("typed-secret");
    expect((await client.destroy(sandbox)).status).toBe(204);
  });
});
