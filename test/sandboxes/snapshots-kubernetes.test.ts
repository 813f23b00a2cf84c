/**
 * Snapshots through REST on the Kubernetes runtime (docs/sandboxes.md#snapshots), on both
 * databases, with msw playing the API server (test/doubles/fake-kubernetes-cluster.ts). With a
 * VolumeSnapshotClass: the workspace is an ephemeral claim of the disk's size, a snapshot is a
 * `sync` in the pod then the exact VolumeSnapshot of `<pod>-workspace`, polled until readyToUse,
 * its restoreSize counted in the account's storage; a restore's claim template starts from it
 * (`dataSource`); delete removes it. Without the class, 409 snapshots_not_supported naming the
 * setting, and no request reaches the cluster. A snapshot the driver fails or never finishes is
 * tested on the real control plane (kubernetes-real-cluster-snapshots.test.ts).
 */
import { HttpResponse, http } from "msw";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createKubernetesSandboxRuntime } from "../../plugins/sandbox-kubernetes/runtime.ts";
import {
  apiServer,
  createFakeKubernetesCluster,
  execLink,
  interceptableExecWebSocket,
  statusFrame,
  testKubeConfig,
} from "../doubles/fake-kubernetes-cluster.ts";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  type SandboxClient,
  type SessionOut,
  type SnapshotOut,
} from "./sandbox-client.ts";

interface PodBody {
  spec: { volumes: Array<Record<string, unknown>> };
}

const namespace = "cairn-sandboxes";
const base = `/api/v1/namespaces/${namespace}`;
const policiesPath = `/apis/networking.k8s.io/v1/namespaces/${namespace}/networkpolicies`;
const snapshotsPath = `/apis/snapshot.storage.k8s.io/v1/namespaces/${namespace}/volumesnapshots`;
const gibibyte = 1024 ** 3;

const cluster = createFakeKubernetesCluster();
const kubeConfig = testKubeConfig();
beforeAll(() => cluster.network.enable());
afterEach(async () => {
  cluster.network.resetHandlers();
  await cluster.takeRequests();
});
afterAll(() => cluster.network.disable());

const echo = async ({ request }: { request: Request }) =>
  HttpResponse.json(await request.json(), { status: 201 });
const notFound = () =>
  HttpResponse.json({ kind: "Status", status: "Failure", reason: "NotFound", code: 404 }, { status: 404 });

/**
 * A cluster that runs every pod, binds every workspace claim, answers every exec with exit 0
 * (its argv pushed to `commands`), and reports VolumeSnapshots through `snapshotStatus`, called
 * with how many times that snapshot was read.
 */
function acceptEverything(commands: string[][], snapshotStatus: (reads: number) => unknown) {
  const reads = new Map<string, number>();
  cluster.network.use(
    http.post(`${apiServer}${policiesPath}`, echo),
    http.delete(`${apiServer}${policiesPath}/:name`, () => HttpResponse.json({})),
    http.post(`${apiServer}${base}/pods`, echo),
    http.delete(`${apiServer}${base}/pods/:name`, () => HttpResponse.json({})),
    http.get(`${apiServer}${base}/pods/:name`, ({ params }) =>
      HttpResponse.json({
        metadata: { name: params.name, namespace },
        status: {
          phase: "Running",
          containerStatuses: [{ name: "sandbox", ready: true, state: { running: {} } }],
        },
      }),
    ),
    http.get(`${apiServer}${base}/persistentvolumeclaims/:name`, ({ params }) =>
      HttpResponse.json({
        metadata: { name: params.name, namespace },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "3Gi" } } },
        status: { phase: "Bound", capacity: { storage: "3Gi" } },
      }),
    ),
    http.post(`${apiServer}${snapshotsPath}`, echo),
    http.get(`${apiServer}${snapshotsPath}/:name`, ({ params }) => {
      const name = String(params.name);
      reads.set(name, (reads.get(name) ?? 0) + 1);
      return HttpResponse.json({
        apiVersion: "snapshot.storage.k8s.io/v1",
        kind: "VolumeSnapshot",
        metadata: { name, namespace },
        status: snapshotStatus(reads.get(name) ?? 0),
      });
    }),
    http.delete(`${apiServer}${snapshotsPath}/:name`, () => HttpResponse.json({})),
    execLink.addEventListener("connection", ({ client }) => {
      commands.push(client.url.searchParams.getAll("command"));
      client.send(statusFrame(0));
    }),
  );
}

const readyAfterThirdRead = (reads: number) =>
  reads < 3 ? { readyToUse: false } : { readyToUse: true, restoreSize: "3Gi" };

const requestLines = async () =>
  (await cluster.takeRequests()).map(({ method, path }) => `${method} ${path}`);

describe.each(storageTargets)("snapshots on the Kubernetes runtime, on %s", (target) => {
  let test: TestPlatform;
  let client: SandboxClient;

  beforeAll(async () => {
    test = await createSandboxPlatform(target, {
      sandboxRuntime: createKubernetesSandboxRuntime({
        namespace,
        kubeConfig,
        image: "registry.test/cairn/sandbox:1",
        pollIntervalMs: 1,
        snapshotClass: "csi-snapclass",
        workspaceStorageClass: "fast-ssd",
        snapshotTimeoutMs: 300,
        execWebSocket: interceptableExecWebSocket(kubeConfig),
      }),
    });
    client = await createSandboxClient(test);
  });
  afterAll(() => test.close());

  it("snapshots the workspace claim after a sync, waits for readyToUse, counts its size, restores from it and deletes it", async () => {
    const commands: string[][] = [];
    acceptEverything(commands, readyAfterThirdRead);
    const source = await client.createActive({ label: "source", storage_gb: 3 });
    const sourcePod = `cairn-sandbox-${source.id}`;
    const [, pod] = await cluster.takeRequests();
    // The workspace is a generic ephemeral volume of the disk's size; /tmp stays an emptyDir.
    expect((pod.body as PodBody).spec.volumes.slice(0, 2)).toEqual([
      {
        name: "workspace",
        ephemeral: {
          volumeClaimTemplate: {
            metadata: {
              labels: { "app.kubernetes.io/managed-by": "cairn", "cairn.dev/session-id": source.id },
            },
            spec: {
              accessModes: ["ReadWriteOnce"],
              storageClassName: "fast-ssd",
              resources: { requests: { storage: "3Gi" } },
            },
          },
        },
      },
      { name: "tmp", emptyDir: { sizeLimit: "3Gi" } },
    ]);

    const taken = await client.sendJson<SnapshotOut>(`/v1/sandboxes/${source.id}/snapshots`, {
      method: "POST",
      json: { label: "first" },
    });
    expect(taken.status).toBe(201);
    expect(taken.body).toMatchObject({
      session_id: source.id,
      label: "first",
      status: "ready",
      size_bytes: 3 * gibibyte,
    });
    const snapshotName = `cairn-snapshot-${taken.body.id}`;
    expect(commands).toEqual([["sync"]]);
    const requests = await cluster.takeRequests();
    expect(requests.map(({ method, path }) => `${method} ${path}`)).toEqual([
      `GET ${base}/persistentvolumeclaims/${sourcePod}-workspace`,
      `POST ${snapshotsPath}`,
      // Polled until readyToUse.
      `GET ${snapshotsPath}/${snapshotName}`,
      `GET ${snapshotsPath}/${snapshotName}`,
      `GET ${snapshotsPath}/${snapshotName}`,
    ]);
    expect(requests[1].body).toEqual({
      apiVersion: "snapshot.storage.k8s.io/v1",
      kind: "VolumeSnapshot",
      metadata: {
        name: snapshotName,
        labels: {
          "app.kubernetes.io/managed-by": "cairn",
          "cairn.dev/session-id": source.id,
          "cairn.dev/snapshot-id": taken.body.id,
        },
      },
      spec: {
        volumeSnapshotClassName: "csi-snapclass",
        source: { persistentVolumeClaimName: `${sourcePod}-workspace` },
      },
    });
    expect((await client.usage()).body).toMatchObject({ snapshots: 1, snapshot_storage_bytes: 3 * gibibyte });
    const listed = await client.sendJson<SnapshotOut[]>(`/v1/sandboxes/${source.id}/snapshots`);
    expect(listed.body.map((snapshot) => snapshot.id)).toEqual([taken.body.id]);
    expect(await cluster.takeRequests()).toEqual([]);

    const restored = await client.sendJson<SessionOut>(`/v1/snapshots/${taken.body.id}/restore`, {
      method: "POST",
      json: { label: "copy" },
    });
    expect(restored.status).toBe(201);
    expect(restored.body).toMatchObject({ status: "active", label: "copy", runtime: "kubernetes" });
    const restoredPod = (await cluster.takeRequests()).find(
      ({ method, path }) => method === "POST" && path === `${base}/pods`,
    );
    expect((restoredPod as { body: PodBody }).body.spec.volumes[0]).toEqual({
      name: "workspace",
      ephemeral: {
        volumeClaimTemplate: {
          metadata: {
            labels: { "app.kubernetes.io/managed-by": "cairn", "cairn.dev/session-id": restored.body.id },
          },
          spec: {
            accessModes: ["ReadWriteOnce"],
            storageClassName: "fast-ssd",
            resources: { requests: { storage: "3Gi" } },
            dataSource: { apiGroup: "snapshot.storage.k8s.io", kind: "VolumeSnapshot", name: snapshotName },
          },
        },
      },
    });

    expect((await client.send(`/v1/snapshots/${taken.body.id}`, { method: "DELETE" })).status).toBe(204);
    expect(await requestLines()).toEqual([`DELETE ${snapshotsPath}/${snapshotName}`]);
    expect((await client.sendJson(`/v1/snapshots/${taken.body.id}`)).status).toBe(404);
    expect((await client.usage()).body).toMatchObject({ snapshots: 0, snapshot_storage_bytes: 0 });
    for (const id of [source.id, restored.body.id]) expect((await client.destroy(id)).status).toBe(204);
  });

  it("refuses a sandbox whose workspace has no claim (created before snapshots were on) with 409", async () => {
    acceptEverything([], readyAfterThirdRead);
    cluster.network.use(http.get(`${apiServer}${base}/persistentvolumeclaims/:name`, notFound));
    const source = await client.createActive({});
    await cluster.takeRequests();
    const refused = await client.sendJson<{ error: { remediation: string } }>(
      `/v1/sandboxes/${source.id}/snapshots`,
      { method: "POST", json: {} },
    );
    expect([refused.status, errorCode(refused.body)]).toEqual([409, "snapshots_not_supported"]);
    expect(refused.body.error.remediation).toContain("create a new sandbox");
    expect(await requestLines()).toEqual([
      `GET ${base}/persistentvolumeclaims/cairn-sandbox-${source.id}-workspace`,
      expect.stringMatching(new RegExp(`^DELETE ${snapshotsPath}/cairn-snapshot-`)),
    ]);
    expect((await client.destroy(source.id)).status).toBe(204);
  });
});

describe("snapshots on the Kubernetes runtime without a VolumeSnapshotClass", () => {
  let test: TestPlatform;
  let client: SandboxClient;
  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite", {
      sandboxRuntime: createKubernetesSandboxRuntime({
        namespace,
        kubeConfig,
        image: "registry.test/cairn/sandbox:1",
        pollIntervalMs: 1,
        execWebSocket: interceptableExecWebSocket(kubeConfig),
      }),
    });
    client = await createSandboxClient(test);
  });
  afterAll(() => test.close());

  it("keeps the workspace an emptyDir and answers 409 snapshots_not_supported naming the setting, asking nothing of the cluster", async () => {
    acceptEverything([], readyAfterThirdRead);
    const source = await client.createActive({});
    const [, pod] = await cluster.takeRequests();
    expect((pod.body as PodBody).spec.volumes[0]).toEqual({
      name: "workspace",
      emptyDir: { sizeLimit: "2Gi" },
    });
    const refused = await client.sendJson<{ error: { retryable: boolean; remediation: string } }>(
      `/v1/sandboxes/${source.id}/snapshots`,
      { method: "POST", json: {} },
    );
    expect([refused.status, errorCode(refused.body)]).toEqual([409, "snapshots_not_supported"]);
    expect(refused.body.error.retryable).toBe(false);
    expect(refused.body.error.remediation).toContain("SVC_KUBE_SNAPSHOT_CLASS");
    expect(await cluster.takeRequests()).toEqual([]);
    expect((await client.usage()).body).toMatchObject({ snapshots: 0 });
    expect((await client.destroy(source.id)).status).toBe(204);
  });
});
