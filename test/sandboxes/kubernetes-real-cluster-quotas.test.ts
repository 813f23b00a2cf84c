/**
 * Sandbox quotas on a real Kubernetes control plane (test/support/kubernetes-cluster.ts), through
 * REST, with Cairn as its own service account: Cairn's caps answer their quota codes before
 * anything reaches the cluster, and a namespace ResourceQuota (the cluster-side cap the runtime's
 * README suggests) that refuses a pod answers `global_capacity_reached`. Either way the API server
 * holds no pod or policy of a refused create, even when a batch was refused half-way.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { objectName } from "../../plugins/sandbox-kubernetes/manifests.ts";
import { eventually } from "../support/eventually.ts";
import {
  createCairnRuntime,
  expectCairnObjects,
  useKubernetesTestCluster,
} from "../support/kubernetes-cluster-cairn.ts";
import type { TestPlatform } from "../support/platforms.ts";
import { createSandboxClient, createSandboxPlatform, errorCode } from "./sandbox-client.ts";

const cluster = useKubernetesTestCluster();

describe("sandbox quotas on a real Kubernetes control plane", () => {
  let test: TestPlatform;

  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite", { sandboxRuntime: createCairnRuntime(cluster()) });
  });
  afterAll(() => test?.close());

  it("refuses an account at its concurrent cap, a batch past it and a size past the maximum, creating no pod", async () => {
    const client = await createSandboxClient(test);
    const first = await client.createActive();
    const second = await client.createActive();
    const running = [objectName(first.id), objectName(second.id)];
    await expectCairnObjects(cluster(), running);

    const refused = await client.create();
    expect([refused.status, refused.body]).toMatchObject([
      429,
      {
        error: {
          code: "concurrent_sandbox_limit_reached",
          retryable: false,
          details: { limit: 2, active: 2 },
        },
      },
    ]);
    const other = await createSandboxClient(test);
    const batch = await other.create({ count: 3 });
    expect([batch.status, errorCode(batch.body)]).toEqual([429, "concurrent_sandbox_limit_reached"]);
    const large = await other.create({ size: "large" });
    expect([large.status, errorCode(large.body)]).toEqual([429, "sandbox_size_limit_reached"]);
    expect((await other.usage()).body.total_sandboxes_created).toBe(0);
    await expectCairnObjects(cluster(), running);

    for (const session of [first, second]) expect((await client.destroy(session.id)).status).toBe(204);
    await expectCairnObjects(cluster(), []);
  });
});

describe("a ResourceQuota on the sandbox namespace", () => {
  const quotaPath = () => `/api/v1/namespaces/${cluster().sandboxNamespace}/resourcequotas`;
  let test: TestPlatform;

  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite", { sandboxRuntime: createCairnRuntime(cluster()) });
    await cluster().admin.send("POST", quotaPath(), {
      apiVersion: "v1",
      kind: "ResourceQuota",
      metadata: { name: "sandboxes" },
      spec: { hard: { pods: "3" } },
    });
    // The quota admits nothing until the controller manager has counted what it covers.
    await quotaCounts(0);
  });
  /** Waits until the quota counts `pods` pods: the controller manager gives back a deleted pod's slot. */
  const quotaCounts = (pods: number) =>
    eventually(async () => {
      const quota = (await cluster().admin.send("GET", `${quotaPath()}/sandboxes`)) as {
        status?: { hard?: Record<string, string>; used?: Record<string, string> };
      };
      return quota.status?.hard?.pods === "3" && quota.status.used?.pods === String(pods) ? true : undefined;
    });
  afterAll(async () => {
    await cluster()?.admin.request("DELETE", `${quotaPath()}/sandboxes`);
    await test?.close();
  });

  // Regression: the cluster's refusal answered 502 sandbox_operation_failed, a runtime fault,
  // where the deployment is simply full.
  it("answers global_capacity_reached with the quota's figures, and a batch refused half-way leaves no pod", async () => {
    const alice = await createSandboxClient(test);
    const bob = await createSandboxClient(test);
    const carol = await createSandboxClient(test);
    const kept = [await alice.createActive(), await alice.createActive()];
    const keptNames = kept.map((session) => objectName(session.id));
    await expectCairnObjects(cluster(), keptNames);

    // Cairn's own caps let Bob's two through; the quota admits the first pod and refuses the second.
    const batch = await bob.create({ count: 2 });
    expect([batch.status, batch.body]).toMatchObject([
      429,
      { error: { code: "global_capacity_reached", retryable: true, details: { limit: 3, active: 3 } } },
    ]);
    expect((await bob.list()).body).toEqual([]);
    expect((await bob.usage()).body).toMatchObject({ concurrent_sandboxes: 0, total_sandboxes_created: 0 });
    await expectCairnObjects(cluster(), keptNames);
    await quotaCounts(2);

    const third = await carol.createActive();
    const full = await bob.create();
    expect([full.status, errorCode(full.body)]).toEqual([429, "global_capacity_reached"]);
    await expectCairnObjects(cluster(), [...keptNames, objectName(third.id)]);

    // A slot freed on the cluster is a slot again.
    expect((await alice.destroy(kept[0].id)).status).toBe(204);
    await expectCairnObjects(cluster(), [keptNames[1], objectName(third.id)]);
    await quotaCounts(2);
    const after = await bob.createActive();
    expect((await bob.exec(after.id, "echo in")).body.stdout).toBe("in\n");
    for (const [client, session] of [
      [alice, kept[1]],
      [carol, third],
      [bob, after],
    ] as const)
      expect((await client.destroy(session.id)).status).toBe(204);
    await expectCairnObjects(cluster(), []);
  });
});
