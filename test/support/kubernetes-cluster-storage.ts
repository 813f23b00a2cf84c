/**
 * Storage for the test Kubernetes cluster (kubernetes-cluster.ts), whose node runs no CSI driver.
 * The cluster serves the volume-snapshot API and runs external-snapshotter's snapshot controller;
 * `startTestStorage` plays what cannot run here, a CSI driver with its two sidecars:
 * - the provisioner: a PersistentVolume of the test's driver bound to each pending claim of the
 *   sandbox namespace; a claim whose `dataSource` is a VolumeSnapshot only once that is ready,
 *   with the snapshot's files put in the new pod's folder;
 * - the snapshotter: each VolumeSnapshotContent of the test's driver that the snapshot controller
 *   made for a VolumeSnapshot is cut (the source pod's /workspace folder copied), kept by the
 *   driver's finalizer and its status set ready, which the controller carries to the
 *   VolumeSnapshot (or failed, with the text of the workspace's `failSnapshotFile` as the
 *   driver's error, or never finished while the workspace holds `hangSnapshotFile`); once the
 *   controller deletes it, the copy goes and then the finalizer.
 * Everything Cairn does goes to the real API server and the real snapshot controller. A round of
 * the storage runs on every change the API server reports (a watch), not on a timer.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { V1PersistentVolume, V1PersistentVolumeClaim } from "@kubernetes/client-node";
import { quantityBytes } from "../../plugins/sandbox-kubernetes/snapshots.ts";
import type { KubernetesTestCluster } from "./kubernetes-cluster.ts";

export const testSnapshotClass = "cairn-test-snapshots";
const testDriver = "snapshots.cairn.test";
const snapshots = "/apis/snapshot.storage.k8s.io/v1";
/** A file in a sandbox's /workspace that makes the driver fail its snapshots, with its text as the error. */
export const failSnapshotFile = ".cairn-test-snapshot-error";
/** A file in a sandbox's /workspace that makes the driver never finish its snapshots. */
export const hangSnapshotFile = ".cairn-test-snapshot-hang";
/** The finalizer a driver's snapshotter keeps on a content until the snapshot behind it is deleted. */
const contentFinalizer = "snapshot.storage.kubernetes.io/volumesnapshotcontent-bound-protection";

interface VolumeSnapshot {
  metadata: { name: string; uid: string };
  status?: { readyToUse?: boolean; boundVolumeSnapshotContentName?: string };
}

interface VolumeSnapshotContent {
  metadata: { name: string; uid: string; deletionTimestamp?: string; finalizers?: string[] };
  spec: { driver: string; source: { volumeHandle?: string } };
  status?: { readyToUse?: boolean; snapshotHandle?: string };
}

/** The test driver's VolumeSnapshotClass, deleting a snapshot's storage with it. */
export async function createTestSnapshotClass(cluster: KubernetesTestCluster) {
  await cluster.admin.send("POST", `${snapshots}/volumesnapshotclasses?fieldValidation=Strict`, {
    apiVersion: "snapshot.storage.k8s.io/v1",
    kind: "VolumeSnapshotClass",
    metadata: { name: testSnapshotClass },
    driver: testDriver,
    deletionPolicy: "Delete",
  });
}

export interface TestStorage {
  /** Claims bound so far, with the VolumeSnapshot each started from (null: an empty volume). */
  readonly bound: Map<string, string | null>;
  /** Stops; throws what went wrong in a round, if anything did. */
  stop(): Promise<void>;
}

/** Plays the driver's provisioner and snapshotter for the sandbox namespace until stopped. */
export function startTestStorage(cluster: KubernetesTestCluster): TestStorage {
  const { admin, sandboxNamespace: namespace } = cluster;
  const copies = mkdtempSync(join(tmpdir(), "cairn-test-snapshots-"));
  const podFolder = (pod: string) => join(cluster.podsDirectory, namespace, pod);
  const bound = new Map<string, string | null>();
  // Contents the driver failed or leaves unfinished: not looked at again.
  const settled = new Set<string>();
  const failures: string[] = [];
  let stopped = false;

  /** The pod a generic ephemeral claim belongs to (the API server names it `<pod>-<volume>`). */
  const ownerPod = (claim: V1PersistentVolumeClaim) =>
    claim.metadata?.ownerReferences?.find((owner) => owner.kind === "Pod")?.name;

  async function provision(claim: V1PersistentVolumeClaim) {
    const name = claim.metadata?.name as string;
    const source = claim.spec?.dataSource;
    if (source?.kind === "VolumeSnapshot") {
      const snapshot = (await admin.send(
        "GET",
        `${snapshots}/namespaces/${namespace}/volumesnapshots/${source.name}`,
      )) as VolumeSnapshot;
      const contentName = snapshot.status?.boundVolumeSnapshotContentName;
      if (snapshot.status?.readyToUse !== true || contentName === undefined) return;
      const content = (await admin.send(
        "GET",
        `${snapshots}/volumesnapshotcontents/${contentName}`,
      )) as VolumeSnapshotContent;
      const pod = ownerPod(claim);
      if (pod === undefined || content.status?.snapshotHandle === undefined) return;
      mkdirSync(podFolder(pod), { recursive: true });
      cpSync(join(copies, content.status.snapshotHandle), join(podFolder(pod), "workspace"), {
        recursive: true,
      });
    }
    await admin.send("POST", "/api/v1/persistentvolumes?fieldValidation=Strict", {
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: `pv-${claim.metadata?.uid}` },
      spec: {
        capacity: { storage: claim.spec?.resources?.requests?.storage },
        accessModes: claim.spec?.accessModes,
        persistentVolumeReclaimPolicy: "Retain",
        storageClassName: claim.spec?.storageClassName ?? "",
        csi: { driver: testDriver, volumeHandle: `volume-${claim.metadata?.uid}` },
        claimRef: { namespace, name, uid: claim.metadata?.uid },
      },
    });
    bound.set(name, source?.kind === "VolumeSnapshot" ? source.name : null);
  }

  /** Cuts a content the controller made: the source volume's pod folder, copied. */
  async function cut(content: VolumeSnapshotContent, volumes: V1PersistentVolume[]) {
    const volume = volumes.find((pv) => pv.spec?.csi?.volumeHandle === content.spec.source.volumeHandle);
    const claimRef = volume?.spec?.claimRef;
    if (claimRef?.name === undefined) return;
    const claim = (await admin.send(
      "GET",
      `/api/v1/namespaces/${namespace}/persistentvolumeclaims/${claimRef.name}`,
    )) as V1PersistentVolumeClaim;
    const workspace = join(podFolder(ownerPod(claim) as string), "workspace");
    if (existsSync(join(workspace, hangSnapshotFile))) {
      settled.add(content.metadata.uid);
      return;
    }
    const path = `${snapshots}/volumesnapshotcontents/${content.metadata.name}`;
    const current = await admin.request("GET", path);
    if (current.status === 404) return;
    let guarded = current.body as VolumeSnapshotContent;
    if (!guarded.metadata.finalizers?.includes(contentFinalizer)) {
      guarded.metadata.finalizers = [...(guarded.metadata.finalizers ?? []), contentFinalizer];
      guarded = (await admin.send("PUT", path, guarded)) as VolumeSnapshotContent;
    }
    const failure = join(workspace, failSnapshotFile);
    if (existsSync(failure)) {
      await admin.send("PUT", `${path}/status`, {
        ...guarded,
        status: {
          readyToUse: false,
          error: { message: readFileSync(failure, "utf8").trim(), time: new Date().toISOString() },
        },
      });
      settled.add(content.metadata.uid);
      return;
    }
    const handle = `snapshot-${content.metadata.uid}`;
    cpSync(workspace, join(copies, handle), { recursive: true });
    await admin.send("PUT", `${path}/status`, {
      ...guarded,
      status: {
        snapshotHandle: handle,
        readyToUse: true,
        restoreSize: quantityBytes(volume?.spec?.capacity?.storage),
        creationTime: Date.now() * 1_000_000,
      },
    });
  }

  async function round() {
    const claims = (await admin.send("GET", `/api/v1/namespaces/${namespace}/persistentvolumeclaims`)) as {
      items: V1PersistentVolumeClaim[];
    };
    for (const claim of claims.items)
      if (claim.status?.phase === "Pending" && !bound.has(claim.metadata?.name as string))
        await provision(claim);
    const contents = (await admin.send("GET", `${snapshots}/volumesnapshotcontents`)) as {
      items: VolumeSnapshotContent[];
    };
    // A content being deleted: the snapshot behind it goes, then the finalizer.
    for (const content of contents.items) {
      if (content.spec.driver !== testDriver || content.metadata.deletionTimestamp === undefined) continue;
      if (content.status?.snapshotHandle !== undefined)
        rmSync(join(copies, content.status.snapshotHandle), { recursive: true, force: true });
      const path = `${snapshots}/volumesnapshotcontents/${content.metadata.name}`;
      const finalizers = (content.metadata.finalizers ?? []).filter((name) => name !== contentFinalizer);
      await admin.send("PUT", path, { ...content, metadata: { ...content.metadata, finalizers } });
    }
    const uncut = contents.items.filter(
      (content) =>
        content.spec.driver === testDriver &&
        content.status?.snapshotHandle === undefined &&
        content.metadata.deletionTimestamp === undefined &&
        !settled.has(content.metadata.uid),
    );
    if (uncut.length === 0) return;
    const volumes = (await admin.send("GET", "/api/v1/persistentvolumes")) as { items: V1PersistentVolume[] };
    for (const content of uncut) await cut(content, volumes.items);
  }

  // A round runs whenever a claim, a VolumeSnapshot or a content changes, as a controller's
  // informers would have it: no polling.
  let changed = true;
  let wake: () => void = () => {};
  const note = () => {
    changed = true;
    wake();
  };
  const unwatch = [
    `/api/v1/namespaces/${namespace}/persistentvolumeclaims`,
    `${snapshots}/namespaces/${namespace}/volumesnapshots`,
    `${snapshots}/volumesnapshotcontents`,
  ].map((path) => admin.watch(path, note));
  const loop = (async () => {
    while (!stopped) {
      if (!changed) await new Promise<void>((resolve) => (wake = resolve));
      changed = false;
      if (!stopped)
        await round().catch((error: unknown) => {
          // A conflict: another writer (the snapshot controller) changed the object since it was
          // read. As a controller does, take the round again from what the server holds now.
          if (/ answered 409: .*"reason":"Conflict"/.test(String(error))) changed = true;
          else failures.push(String(error));
        });
    }
  })();

  return {
    bound,
    async stop() {
      stopped = true;
      for (const stopWatching of unwatch) stopWatching();
      wake();
      await loop;
      rmSync(copies, { recursive: true, force: true });
      if (failures.length > 0) throw new Error(`the test storage failed: ${failures.slice(0, 3).join("; ")}`);
    },
  };
}
