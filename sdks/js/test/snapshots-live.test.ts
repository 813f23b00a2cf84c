/**
 * The SDK's snapshot, key-role and activity methods against a live server with real local
 * sandboxes: snapshot, restore with the files intact, a member key refused a delete
 * (CairnApiError insufficient_role, 403), the log and a live watch.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, startLiveServer } from "../../../test/mcp/mcp-harness.ts";
import { CairnApiError, CairnClient } from "../src/index.ts";

describe("cairn-client snapshots and activity against a live server", () => {
  let server: LiveServer;
  let client: CairnClient;
  let member: CairnClient;

  beforeAll(async () => {
    server = await startLiveServer({ SVC_AUTH_RATE_LIMIT_PER_MINUTE: "100" });
    const anonymous = new CairnClient({ baseUrl: server.baseUrl });
    const { access_token } = await anonymous.signup(
      `sdk-${crypto.randomUUID()}@example.com`,
      "sdk password 1",
    );
    const admin = await anonymous.createApiKey(access_token, "admin");
    const agent = await anonymous.createApiKey(access_token, "agent", { role: "member" });
    expect([admin.role, agent.role]).toEqual(["admin", "member"]);
    client = new CairnClient({ baseUrl: server.baseUrl, apiKey: admin.key });
    member = new CairnClient({ baseUrl: server.baseUrl, apiKey: agent.key });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it("snapshots, restores, refuses a member's delete, and shows the activity", async () => {
    const sandbox = await client.createSandbox({});
    const watch = client.watchSandbox(sandbox.id, { since: 0 });
    const first = watch.next();
    await client.exec(sandbox.id, "echo kept > a.txt");
    expect((await first).value).toMatchObject({
      kind: "command",
      subject: "echo kept > a.txt",
      exit_code: 0,
    });
    await watch.return(undefined);

    const snapshot = await client.createSnapshot(sandbox.id, { label: "sdk" });
    expect(snapshot).toMatchObject({ session_id: sandbox.id, label: "sdk", status: "ready" });
    expect((await client.listSnapshots(sandbox.id)).map((item) => item.id)).toEqual([snapshot.id]);
    await client.exec(sandbox.id, "echo changed > a.txt");
    const restored = await client.restoreSnapshot(snapshot.id);
    expect((await client.exec(restored.id, "cat a.txt")).stdout).toBe("kept\n");

    const refused = await member.deleteSnapshot(snapshot.id).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CairnApiError);
    expect(refused).toMatchObject({ code: "insufficient_role", statusCode: 403 });
    await client.deleteSnapshot(snapshot.id);

    const log = await client.sandboxLog(sandbox.id, { limit: 10 });
    expect(log.entries.map((entry) => entry.kind)).toEqual(["command", "snapshot", "command"]);
    await client.destroySandbox(restored.id);
    await client.destroySandbox(sandbox.id);
  }, 120_000);
});
