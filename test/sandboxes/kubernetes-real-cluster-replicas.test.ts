/**
 * Two Cairn replicas on one PostgreSQL database sharing a real Kubernetes control plane
 * (test/support/kubernetes-cluster.ts), each with its own runtime as Cairn's service account, as
 * deploy/kubernetes runs them: a sandbox made through one is used and destroyed through the
 * other; a replica starting up adopts the other's live sandboxes rather than deleting them; the
 * account's cap holds across both; and their reapers end an expired sandbox once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reapExpiredSandboxes, reconcileSandboxes } from "../../core/index.ts";
import { objectName } from "../../plugins/sandbox-kubernetes/manifests.ts";
import { createFakeClock } from "../doubles/fake-clock.ts";
import {
  createCairnRuntime,
  expectCairnObjects,
  useKubernetesTestCluster,
} from "../support/kubernetes-cluster-cairn.ts";
import { createTestDatabase, type TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  type SandboxClient,
} from "./sandbox-client.ts";

const cluster = useKubernetesTestCluster();

describe("two replicas on one PostgreSQL sharing a real Kubernetes control plane", () => {
  const clock = createFakeClock(new Date("2026-06-02T10:00:00Z"));
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const replicas: TestPlatform[] = [];
  const replica = () =>
    createSandboxPlatform("postgresql", {
      clock,
      databaseUrl: database.url,
      sandboxRuntime: createCairnRuntime(cluster()),
      environment: { SVC_RATE_LIMIT_STORE: "postgres" },
    });
  let one: SandboxClient;
  let two: SandboxClient;

  beforeAll(async () => {
    database = await createTestDatabase();
    replicas.push(await replica());
    one = await createSandboxClient(replicas[0]);
    replicas.push(await replica());
    two = await createSandboxClient(replicas[1], one);
  });
  afterAll(async () => {
    for (const platform of replicas) await platform.close();
    await database?.drop();
  });

  it("execs, writes, reads and destroys through one replica a sandbox created through the other", async () => {
    const session = await one.createActive();
    const name = objectName(session.id);
    await expectCairnObjects(cluster(), [name]);

    const echoed = await two.exec(session.id, "echo from the second replica > note.txt; cat note.txt");
    expect([echoed.status, echoed.body.exit_code, echoed.body.stdout]).toEqual([
      200,
      0,
      "from the second replica\n",
    ]);
    const written = await two.sendJson(`/v1/sandboxes/${session.id}/files`, {
      method: "POST",
      json: { path: "notes/b.txt", content: "written on two\n" },
    });
    expect(written.status).toBe(200);
    const viewed = await one.sendJson<{ content: string }>(`/v1/sandboxes/${session.id}/files/view`, {
      method: "POST",
      json: { path: "notes/b.txt" },
    });
    expect([viewed.status, viewed.body.content]).toEqual([200, "written on two\n"]);
    expect((await two.list(true)).body.map((entry) => entry.id)).toEqual([session.id]);

    expect((await two.destroy(session.id)).status).toBe(204);
    await expectCairnObjects(cluster(), []);
    expect((await one.get(session.id)).body).toMatchObject({
      status: "destroyed",
      ended_reason: "destroyed",
    });
    expect((await one.exec(session.id, "true")).status).toBe(404);
  });

  it("adopts at a replica's start the other's live sandboxes, and holds the account's cap across both", async () => {
    const first = await one.createActive();
    const second = await two.createActive();
    const names = [objectName(first.id), objectName(second.id)];
    await expectCairnObjects(cluster(), names);

    // A third replica rolls out while both run: it adopts, and deletes nothing.
    replicas.push(await replica());
    expect(await reconcileSandboxes(replicas[2].platform)).toEqual({ adopted: 2, removed: 0, ended: 0 });
    await expectCairnObjects(cluster(), names);
    const three = await createSandboxClient(replicas[2], one);
    expect((await three.exec(second.id, "echo adopted")).body.stdout).toBe("adopted\n");

    const refused = await three.create();
    expect([refused.status, errorCode(refused.body)]).toEqual([429, "concurrent_sandbox_limit_reached"]);
    await expectCairnObjects(cluster(), names);
    for (const session of [first, second]) expect((await three.destroy(session.id)).status).toBe(204);
    await expectCairnObjects(cluster(), []);
  });

  it("ends an expired sandbox once when every replica's reaper runs at the same moment", async () => {
    const session = await two.createActive({ lifetime_minutes: 1 });
    await expectCairnObjects(cluster(), [objectName(session.id)]);
    clock.advance(2 * 60_000);
    const ended = await Promise.all(replicas.map((platform) => reapExpiredSandboxes(platform.platform)));
    expect(ended.reduce((sum, count) => sum + count, 0)).toBe(1);
    await expectCairnObjects(cluster(), []);
    expect((await one.get(session.id)).body).toMatchObject({
      status: "destroyed",
      ended_reason: "expired",
      destroyed_at: session.expires_at,
    });
  });
});
