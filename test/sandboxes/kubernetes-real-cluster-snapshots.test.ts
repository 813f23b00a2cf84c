/**
 * Snapshots on the real control plane (test/support/kubernetes-cluster.ts), through REST as
 * Cairn's own service account, on a cluster with the volume-snapshot API (external-snapshotter's
 * CRDs and snapshot controller) and a VolumeSnapshotClass of the test's driver: a sandbox's
 * /workspace is a generic ephemeral claim that kube-controller-manager makes for its pod; a
 * snapshot is a VolumeSnapshot of that claim, which the API server validates against the CRDs and
 * the snapshot controller binds to a VolumeSnapshotContent it makes; a restore is a pod whose
 * claim starts from it (`dataSource`), scheduled only once that claim is bound; deleting the
 * snapshot lets the controller remove both objects, and destroying the pods lets the garbage
 * collector remove their claims. The node has no CSI driver: the test's storage
 * (kubernetes-cluster-storage.ts) binds the claims and cuts the snapshot (a copy of the pod's
 * folder), so the restored files come back through the real exec API.
 */
import type { V1PersistentVolumeClaim, V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { objectName } from "../../plugins/sandbox-kubernetes/manifests.ts";
import { quantityBytes } from "../../plugins/sandbox-kubernetes/snapshots.ts";
import { eventually } from "../support/eventually.ts";
import type { KubernetesTestCluster } from "../support/kubernetes-cluster.ts";
import {
  createCairnRuntime,
  expectCairnObjects,
  podPath,
  useKubernetesTestCluster,
  withholdFromCairn,
} from "../support/kubernetes-cluster-cairn.ts";
import {
  createTestSnapshotClass,
  failSnapshotFile,
  hangSnapshotFile,
  startTestStorage,
  type TestStorage,
  testSnapshotClass,
} from "../support/kubernetes-cluster-storage.ts";
import { createTestDatabase, type TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  type ErrorBody,
  errorCode,
  type SandboxClient,
  type SessionOut,
  type SnapshotOut,
} from "./sandbox-client.ts";

const useCluster = useKubernetesTestCluster();
const snapshotsPath = (namespace: string) =>
  `/apis/snapshot.storage.k8s.io/v1/namespaces/${namespace}/volumesnapshots`;

/** The sandbox has no snapshot left: none listed through REST, no VolumeSnapshot of it on the cluster. */
async function expectNoSnapshots(cluster: KubernetesTestCluster, client: SandboxClient, sessionId: string) {
  const selector = `labelSelector=cairn.dev%2Fsession-id%3D${sessionId}`;
  await eventually(async () => {
    const left = (await cluster.admin.send(
      "GET",
      `${snapshotsPath(cluster.sandboxNamespace)}?${selector}`,
    )) as {
      items: unknown[];
    };
    return left.items.length === 0 ? true : undefined;
  });
  expect((await client.sendJson<unknown[]>(`/v1/sandboxes/${sessionId}/snapshots`)).body).toEqual([]);
}

describe("snapshots on a real Kubernetes control plane", () => {
  let test: TestPlatform;
  let client: SandboxClient;
  let storage: TestStorage;

  beforeAll(async () => {
    const cluster = useCluster();
    await createTestSnapshotClass(cluster);
    storage = startTestStorage(cluster);
    test = await createSandboxPlatform("sqlite", {
      sandboxRuntime: createCairnRuntime(cluster, { snapshotClass: testSnapshotClass }),
    });
    client = await createSandboxClient(test);
  });
  afterAll(async () => {
    await test?.close();
    await storage?.stop();
  });

  it("snapshots a workspace claim, restores it into a new pod's claim, and removes them all", async () => {
    const cluster = useCluster();
    const { admin, sandboxNamespace: namespace } = cluster;
    const claimPath = (name: string) => `/api/v1/namespaces/${namespace}/persistentvolumeclaims/${name}`;

    const source = await client.createActive({ label: "source" });
    const sourcePod = objectName(source.id);
    const pod = (await admin.send("GET", podPath(cluster, sourcePod))) as V1Pod;
    expect(pod.status?.phase).toBe("Running");
    const workspace = pod.spec?.volumes?.find((volume) => volume.name === "workspace");
    expect(workspace?.ephemeral?.volumeClaimTemplate?.spec).toMatchObject({ accessModes: ["ReadWriteOnce"] });
    // The claim kube-controller-manager made for the pod, owned by it, bound by the test's storage.
    const sourceClaim = (await admin.send(
      "GET",
      claimPath(`${sourcePod}-workspace`),
    )) as V1PersistentVolumeClaim;
    expect(sourceClaim.metadata?.ownerReferences?.map((owner) => [owner.kind, owner.name])).toEqual([
      ["Pod", sourcePod],
    ]);
    expect(sourceClaim.status?.phase).toBe("Bound");

    const written = await client.exec(
      source.id,
      "mkdir -p src && echo 'print(1)' > src/app.py && echo kept > notes.txt",
    );
    expect(written.body.exit_code).toBe(0);
    const execsBefore = cluster.execs(sourcePod).length;
    const taken = await client.sendJson<SnapshotOut>(`/v1/sandboxes/${source.id}/snapshots`, {
      method: "POST",
      json: { label: "first" },
    });
    expect(taken.status).toBe(201);
    expect(taken.body).toMatchObject({ session_id: source.id, status: "ready" });
    // The pod's writes were flushed first: one `sync` in the pod, nothing else.
    expect(cluster.execs(sourcePod).slice(execsBefore)).toEqual([["sync"]]);
    // Its size is the claim's, as the VolumeSnapshot's restoreSize says, and the account's usage counts it.
    const claimBytes = quantityBytes(sourceClaim.spec?.resources?.requests?.storage);
    expect([taken.body.size_bytes, claimBytes]).toEqual([claimBytes, expect.any(Number)]);
    expect((await client.usage()).body).toMatchObject({ snapshots: 1, snapshot_storage_bytes: claimBytes });

    // The VolumeSnapshot as the API server stored it.
    const volumeSnapshotName = `cairn-snapshot-${taken.body.id}`;
    const stored = (await admin.send("GET", `${snapshotsPath(namespace)}/${volumeSnapshotName}`)) as {
      metadata: { labels: Record<string, string> };
      spec: unknown;
      status?: { boundVolumeSnapshotContentName?: string };
    };
    // Bound by the snapshot controller to the content it made for the claim's volume.
    const contentName = stored.status?.boundVolumeSnapshotContentName;
    expect(contentName).toMatch(/^snapcontent-/);
    expect(stored.spec).toEqual({
      volumeSnapshotClassName: testSnapshotClass,
      source: { persistentVolumeClaimName: `${sourcePod}-workspace` },
    });
    expect(stored.metadata.labels).toMatchObject({
      "cairn.dev/session-id": source.id,
      "cairn.dev/snapshot-id": taken.body.id,
    });

    // The source changes after the snapshot: none of it reaches the restore.
    await client.exec(source.id, "rm src/app.py && echo new > added.txt");
    const restored = await client.sendJson<SessionOut>(`/v1/snapshots/${taken.body.id}/restore`, {
      method: "POST",
      json: { label: "copy" },
    });
    expect(restored.status).toBe(201);
    expect(restored.body).toMatchObject({ status: "active", label: "copy" });
    const copyPod = objectName(restored.body.id);
    const copyClaim = (await admin.send("GET", claimPath(`${copyPod}-workspace`))) as V1PersistentVolumeClaim;
    expect(copyClaim.spec?.dataSource).toEqual({
      apiGroup: "snapshot.storage.k8s.io",
      kind: "VolumeSnapshot",
      name: volumeSnapshotName,
    });
    expect(storage.bound.get(`${copyPod}-workspace`)).toBe(volumeSnapshotName);
    const read = await client.exec(
      restored.body.id,
      "cat src/app.py notes.txt; test -e added.txt || echo absent",
    );
    expect(read.body).toMatchObject({ exit_code: 0, stdout: "print(1)\nkept\nabsent\n" });

    // The snapshot controller deletes the content and lifts its finalizers, then the object goes.
    expect((await client.send(`/v1/snapshots/${taken.body.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await client.usage()).body).toMatchObject({ snapshots: 0, snapshot_storage_bytes: 0 });
    for (const path of [
      `${snapshotsPath(namespace)}/${volumeSnapshotName}`,
      `/apis/snapshot.storage.k8s.io/v1/volumesnapshotcontents/${contentName}`,
    ])
      await eventually(async () => ((await admin.request("GET", path)).status === 404 ? true : undefined));
    for (const id of [source.id, restored.body.id]) expect((await client.destroy(id)).status).toBe(204);
    await expectCairnObjects(cluster, []);
    // The garbage collector removes each pod's claim after it.
    for (const claim of [`${sourcePod}-workspace`, `${copyPod}-workspace`])
      await eventually(async () =>
        (await admin.request("GET", claimPath(claim))).status === 404 ? true : undefined,
      );
  });

  it("answers a snapshot the runtime may not poll with the missing grant, and leaves no VolumeSnapshot", async () => {
    const cluster = useCluster();
    const session = await client.createActive();
    const restore = await withholdFromCairn(cluster, "volumesnapshots", ["get"]);
    try {
      const refused = await client.sendJson<ErrorBody>(`/v1/sandboxes/${session.id}/snapshots`, {
        method: "POST",
      });
      expect([refused.status, errorCode(refused.body)]).toEqual([409, "sandbox_runtime_misconfigured"]);
      expect(refused.body.error).toMatchObject({
        retryable: false,
        message: `The sandbox runtime's Kubernetes identity may not get volumesnapshots.snapshot.storage.k8s.io in namespace ${cluster.sandboxNamespace}`,
      });
    } finally {
      await restore();
    }
    await expectNoSnapshots(cluster, client, session.id);
    expect((await client.destroy(session.id)).status).toBe(204);
  });

  it("answers a snapshot the driver fails with a non-retryable 409 that hides the driver's words, and keeps nothing", async () => {
    const cluster = useCluster();
    const session = await client.createActive();
    const driverError = "rpc error: code = Internal desc = pvc-4711 in zone eu-secret-1a";
    expect(
      (await client.exec(session.id, `echo '${driverError}' > ${failSnapshotFile}`)).body.exit_code,
    ).toBe(0);
    const failed = await client.sendJson<{ error: ErrorBody["error"] & { remediation: string } }>(
      `/v1/sandboxes/${session.id}/snapshots`,
      { method: "POST" },
    );
    // The driver's error reached the VolumeSnapshot through the snapshot controller.
    expect([failed.status, errorCode(failed.body)]).toEqual([409, "snapshots_not_supported"]);
    expect(failed.body.error).toMatchObject({
      message: "The cluster's storage could not snapshot the workspace",
      retryable: false,
    });
    expect(failed.body.error.remediation).toContain("SVC_KUBE_SNAPSHOT_CLASS");
    expect(JSON.stringify(failed.body)).not.toContain("eu-secret");
    await expectNoSnapshots(cluster, client, session.id);
    expect((await client.destroy(session.id)).status).toBe(204);
  });

  it("fails a snapshot the driver never finishes within the bound as retryable, and deletes it", async () => {
    const cluster = useCluster();
    // A server waiting 3 s for a snapshot (the default is 300 s).
    const impatient = await createSandboxPlatform("sqlite", {
      sandboxRuntime: createCairnRuntime(cluster, {
        snapshotClass: testSnapshotClass,
        snapshotTimeoutMs: 3000,
      }),
    });
    try {
      const other = await createSandboxClient(impatient);
      const session = await other.createActive();
      expect((await other.exec(session.id, `touch ${hangSnapshotFile}`)).body.exit_code).toBe(0);
      const failed = await other.sendJson<ErrorBody>(`/v1/sandboxes/${session.id}/snapshots`, {
        method: "POST",
      });
      expect([failed.status, failed.body.error]).toMatchObject([
        502,
        { code: "sandbox_operation_failed", retryable: true },
      ]);
      await expectNoSnapshots(cluster, other, session.id);
      expect((await other.destroy(session.id)).status).toBe(204);
    } finally {
      await impatient.close();
    }
  });
});

describe("snapshots turned on for a server whose sandboxes predate them", () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const platforms: TestPlatform[] = [];
  const server = async (settings: Parameters<typeof createCairnRuntime>[1] = {}) => {
    const platform = await createSandboxPlatform("postgresql", {
      databaseUrl: database.url,
      sandboxRuntime: createCairnRuntime(useCluster(), settings),
    });
    platforms.push(platform);
    return platform;
  };
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const platform of platforms) await platform.close();
    await database?.drop();
  });

  it("refuses a snapshot with 409 naming the setting while it is off, and naming a new sandbox once it is on", async () => {
    const cluster = useCluster();
    const before = await server();
    const client = await createSandboxClient(before);
    const source = await client.createActive({});
    // Without a VolumeSnapshotClass the workspace is the pod's emptyDir: there is no claim to cut.
    const pod = (await cluster.admin.send("GET", podPath(cluster, objectName(source.id)))) as V1Pod;
    expect(pod.spec?.volumes?.find((volume) => volume.name === "workspace")).toEqual({
      name: "workspace",
      emptyDir: { sizeLimit: "2Gi" },
    });
    /** A snapshot of the sandbox is refused, not retryable, with a remediation saying `fix`, and none is made. */
    const expectRefused = async (as: SandboxClient, fix: string) => {
      const refused = await as.sendJson<{ error: ErrorBody["error"] & { remediation: string } }>(
        `/v1/sandboxes/${source.id}/snapshots`,
        { method: "POST", json: {} },
      );
      expect([refused.status, errorCode(refused.body), refused.body.error.retryable]).toEqual([
        409,
        "snapshots_not_supported",
        false,
      ]);
      expect(refused.body.error.remediation).toContain(fix);
      await expectNoSnapshots(cluster, as, source.id);
    };
    await expectRefused(client, "SVC_KUBE_SNAPSHOT_CLASS");

    // The operator turns snapshots on and restarts: the old sandbox still has no claim.
    await before.close();
    const after = await server({ snapshotClass: testSnapshotClass });
    const same = await createSandboxClient(after, client);
    await expectRefused(same, "create a new sandbox");
    expect((await same.usage()).body).toMatchObject({ snapshots: 0, snapshot_storage_bytes: 0 });
    expect((await same.destroy(source.id)).status).toBe(204);
    await expectCairnObjects(cluster, []);
  });
});
