/**
 * The takeover terminal in real local sandboxes (docs/sandboxes.md#takeover-terminal), over a real
 * Node server's WebSocket: a PTY (`tty` names one), resized by a control message (`stty size`),
 * several viewers at once with a read-only observer whose keystrokes never reach it, the session
 * recorded and read back; refused with a used token (4401), without a credential (4401), to
 * another account (4404), and while the account has an allowlist. Its entries in the activity
 * feed are tested in activity-local.test.ts, on both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTakeoverTerminals } from "../../core/sandboxes/takeover/terminals.ts";
import type { TestPlatform } from "../support/platforms.ts";
import { openSocket, serveOverNode } from "./preview-terminal-support.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  type SandboxClient,
} from "./sandbox-client.ts";

describe("the takeover terminal", () => {
  let test: TestPlatform;
  let client: SandboxClient;
  let other: SandboxClient;
  let served: Awaited<ReturnType<typeof serveOverNode>>;
  let sessionId: string;
  const mint = (json: Record<string, unknown> = {}, as = client) =>
    as.sendJson<{ token: string; expires_at: string; read_only: boolean }>(
      `/v1/sandboxes/${sessionId}/takeover-token`,
      { method: "POST", json },
    );
  const socketUrl = (query: string) =>
    `${served.origin.replace("http:", "ws:")}/v1/sandboxes/${sessionId}/takeover?${query}`;

  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite");
    client = await createSandboxClient(test);
    other = await createSandboxClient(test);
    served = await serveOverNode(test);
    sessionId = (await client.createActive()).id;
  }, 120_000);
  afterAll(async () => {
    await served?.close();
    await test?.close();
  });

  it("runs a shell on a PTY that resizes, shared with a read-only observer", {
    timeout: 60_000,
  }, async () => {
    const minted = await mint();
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    const writer = openSocket(socketUrl(`token=${minted.body.token}&rows=30&cols=90`));
    await writer.opened;
    writer.socket.send(Buffer.from("tty; stty size\n"));
    await writer.waitFor(/\/dev\/pts\/\d+/);
    await writer.waitFor(/30 90/);
    writer.socket.send(JSON.stringify({ type: "resize", rows: 40, cols: 100 }));
    writer.socket.send(Buffer.from("stty size\n"));
    await writer.waitFor(/40 100/);

    const observerToken = await mint({ read_only: true });
    const observer = openSocket(socketUrl(`token=${observerToken.body.token}`));
    await observer.opened;
    observer.socket.send(Buffer.from("echo observer-was-here > /tmp/observed\n"));
    observer.socket.send(JSON.stringify({ type: "resize", rows: 5, cols: 5 }));
    writer.socket.send(Buffer.from("echo shared-$((6*7)); stty size; ls /tmp/observed\n"));
    await observer.waitFor(/shared-42/);
    await writer.waitFor(/shared-42[\s\S]*40 100[\s\S]*No such file/);
    expect(observer.text()).not.toContain("observer-was-here");

    const recording = await client.sendJson<{ events: Array<{ stream: string; data: string }> }>(
      `/v1/sandboxes/${sessionId}/takeover/recording`,
    );
    const typed = recording.body.events
      .filter((event) => event.stream === "input")
      .map((event) => event.data);
    expect(typed.join("")).toContain("tty; stty size");
    expect(typed.join("")).not.toContain("observer-was-here");
    expect(
      recording.body.events.some((event) => event.stream === "output" && /shared-42/.test(event.data)),
    ).toBe(true);
    writer.socket.close();
    observer.socket.close();
  });

  it("opens with an API key in Authorization", { timeout: 60_000 }, async () => {
    const socket = openSocket(socketUrl(""), { Authorization: `Bearer ${client.key}` });
    await socket.opened;
    socket.socket.send(Buffer.from("echo keyed-$((2+3))\n"));
    await socket.waitFor(/keyed-5/);
    socket.socket.close();
  });

  it("refuses a used token, no credential, a bad key and another account", { timeout: 60_000 }, async () => {
    const minted = await mint();
    const first = openSocket(socketUrl(`token=${minted.body.token}`));
    await first.opened;
    const second = openSocket(socketUrl(`token=${minted.body.token}`));
    expect((await second.closed).code).toBe(4401);
    first.socket.close();
    expect((await openSocket(socketUrl("")).closed).code).toBe(4401);
    expect((await openSocket(socketUrl("token=tkt_nothing")).closed).code).toBe(4401);
    const foreign = openSocket(socketUrl(""), { Authorization: `Bearer ${other.key}` });
    expect((await foreign.closed).code).toBe(4404);
    const foreignMint = await mint({}, other);
    expect([foreignMint.status, errorCode(foreignMint.body)]).toEqual([404, "not_found"]);
  });

  it("refuses a member key: minting (403 insufficient_role) and opening (4403)", {
    timeout: 60_000,
  }, async () => {
    const created = await test.request("/v1/api-keys", {
      method: "POST",
      json: { name: "member", role: "member" },
      credential: client.token,
    });
    expect(created.status).toBe(201);
    const member = ((await created.json()) as { key: string }).key;
    const refused = await test.request(`/v1/sandboxes/${sessionId}/takeover-token`, {
      method: "POST",
      json: {},
      credential: member,
    });
    expect([refused.status, errorCode(await refused.json())]).toEqual([403, "insufficient_role"]);
    const socket = openSocket(socketUrl(""), { Authorization: `Bearer ${member}` });
    expect((await socket.closed).code).toBe(4403);
  });

  it("refuses an expired token", () => {
    let now = new Date("2026-01-01T00:00:00Z");
    const terminals = createTakeoverTerminals({ now: () => now });
    const { token } = terminals.mintToken("account", sessionId, false);
    now = new Date(now.getTime() + 60_001);
    expect(terminals.useToken(token)).toBeNull();
  });

  it("is refused while the account has an allowlist", { timeout: 60_000 }, async () => {
    const set = await client.sendJson("/v1/account/allowed-commands", {
      method: "PUT",
      json: { rules: ["ls"] },
    });
    expect(set.status, JSON.stringify(set.body)).toBeLessThan(300);
    const refused = await mint();
    expect([refused.status, errorCode(refused.body)]).toEqual([403, "command_not_allowed"]);
    const socket = openSocket(socketUrl(""), { Authorization: `Bearer ${client.key}` });
    expect((await socket.closed).code).toBe(4403);
    await client.send("/v1/account/allowed-commands", { method: "DELETE" });
  });
});
