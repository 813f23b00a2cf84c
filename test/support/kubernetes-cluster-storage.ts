/**
 * Storage for the test Kubernetes cluster (kubernetes-cluster.ts), whose node runs no CSI driver:
 * - the volume-snapshot API, as a cluster with snapshots has it: the snapshot.storage.k8s.io
 *   CustomResourceDefinitions of external-snapshotter (from its client module on the Go module
 *   proxy, the version pinned below) served by the real API server, which validates every
 *   VolumeSnapshot against their schemas and rules, and a VolumeSnapshotClass;
 * - `startTestStorage`, playing the parts that cannot run here: the provisioner (a
 *   PersistentVolume bound to each pending claim of the sandbox namespace; a claim whose
 *   `dataSource` is a VolumeSnapshot only once it is ready, with the snapshot's files put in the
 *   pod's folder), the snapshot controller and the CSI driver (a VolumeSnapshotContent bound to
 *   each new VolumeSnapshot, the source pod's /workspace copied, then `readyToUse`). The copy is
 *   what a driver's snapshot is; everything Cairn does goes to the real API server.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { V1PersistentVolumeClaim } from "@kubernetes/client-node";
import { parse } from "yaml";
import { eventually } from "./eventually.ts";
import type { KubernetesTestCluster } from "./kubernetes-cluster.ts";

const snapshotApiModule = "github.com/kubernetes-csi/external-snapshotter/client/v8";
const snapshotApiVersion = "v8.4.0";
export const testSnapshotClass = "cairn-test-snapshots";
export const testDriver = "snapshots.cairn.test";
const snapshots = "/apis/snapshot.storage.k8s.io/v1";

interface VolumeSnapshot {
  metadata: { name: string; namespace: string; uid: string };
  spec: { volumeSnapshotClassName?: string; source: { persistentVolumeClaimName?: string } };
  status?: { readyToUse?: boolean; boundVolumeSnapshotContentName?: string };
}

/** The CRDs' folder in the Go module cache, downloaded from the module proxy the first time. */
function snapshotApiDirectory(): string {
  const scratch = mkdtempSync(join(tmpdir(), "cairn-go-download-"));
  try {
    const download = execFileSync(
      "go",
      ["mod", "download", "-json", `${snapshotApiModule}@${snapshotApiVersion}`],
      {
        cwd: scratch,
        encoding: "utf8",
        env: { ...process.env, PATH: `/usr/local/go/bin:${process.env.PATH}` },
      },
    );
    return join((JSON.parse(download) as { Dir: string }).Dir, "config/crd");
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Installs the VolumeSnapshot API and the test's VolumeSnapshotClass; waits until they are served. */
export async function installVolumeSnapshotApi(cluster: KubernetesTestCluster) {
  const directory = snapshotApiDirectory();
  for (const kind of ["volumesnapshotclasses", "volumesnapshotcontents", "volumesnapshots"]) {
    // Parsed as plain YAML: client-node's loader would rename the schemas' `enum` fields.
    const definition = parse(
      readFileSync(join(directory, `snapshot.storage.k8s.io_${kind}.yaml`), "utf8"),
    ) as {
      metadata: { name: string };
    };
    const path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    await cluster.admin.send("POST", `${path}?fieldValidation=Strict`, definition);
    await eventually(async () => {
      const read = (await cluster.admin.send("GET", `${path}/${definition.metadata.name}`)) as {
        status?: { conditions?: Array<{ type: string; status: string }> };
      };
      return read.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")
        ? true
        : undefined;
    });
  }
  await eventually(async () =>
    (await cluster.admin.request("GET", `${snapshots}/volumesnapshotclasses`)).status === 200
      ? true
      : undefined,
  );
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

/** Plays provisioner, snapshot controller and driver for the sandbox namespace until stopped. */
export function startTestStorage(cluster: KubernetesTestCluster): TestStorage {
  const { admin, sandboxNamespace: namespace } = cluster;
  const copies = mkdtempSync(join(tmpdir(), "cairn-test-snapshots-"));
  const podFolder = (pod: string) => join(cluster.podsDirectory, namespace, pod);
  const bound = new Map<string, string | null>();
  const taken = new Set<string>();
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
      if (snapshot.status?.readyToUse !== true) return;
      const pod = ownerPod(claim);
      if (pod === undefined) return;
      mkdirSync(podFolder(pod), { recursive: true });
      cpSync(join(copies, snapshot.metadata.uid), join(podFolder(pod), "workspace"), { recursive: true });
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

  async function snapshot(request: VolumeSnapshot) {
    const { name, uid } = request.metadata;
    const claimName = request.spec.source.persistentVolumeClaimName as string;
    const claim = (await admin.send(
      "GET",
      `/api/v1/namespaces/${namespace}/persistentvolumeclaims/${claimName}`,
    )) as V1PersistentVolumeClaim;
    const pod = ownerPod(claim) as string;
    cpSync(join(podFolder(pod), "workspace"), join(copies, uid), { recursive: true });
    const content = `snapcontent-${uid}`;
    await admin.send("POST", `${snapshots}/volumesnapshotcontents?fieldValidation=Strict`, {
      apiVersion: "snapshot.storage.k8s.io/v1",
      kind: "VolumeSnapshotContent",
      metadata: { name: content },
      spec: {
        volumeSnapshotRef: {
          apiVersion: "snapshot.storage.k8s.io/v1",
          kind: "VolumeSnapshot",
          namespace,
          name,
          uid,
        },
        driver: testDriver,
        deletionPolicy: "Delete",
        volumeSnapshotClassName: request.spec.volumeSnapshotClassName,
        source: { volumeHandle: `volume-${claim.metadata?.uid}` },
      },
    });
    taken.add(uid);
    const path = `${snapshots}/namespaces/${namespace}/volumesnapshots/${name}`;
    const current = await admin.request("GET", path);
    // Deleted meanwhile (Cairn deletes the VolumeSnapshot of a snapshot that failed).
    if (current.status === 404) return;
    await admin.send("PUT", `${path}/status`, {
      ...(current.body as VolumeSnapshot),
      status: {
        boundVolumeSnapshotContentName: content,
        creationTime: new Date().toISOString(),
        readyToUse: true,
        restoreSize: claim.status?.capacity?.storage ?? claim.spec?.resources?.requests?.storage,
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
    const requests = (await admin.send("GET", `${snapshots}/namespaces/${namespace}/volumesnapshots`)) as {
      items: VolumeSnapshot[];
    };
    for (const request of requests.items) if (!taken.has(request.metadata.uid)) await snapshot(request);
  }

  const loop = (async () => {
    while (!stopped) {
      await round().catch((error: unknown) => failures.push(String(error)));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();

  return {
    bound,
    async stop() {
      stopped = true;
      await loop;
      rmSync(copies, { recursive: true, force: true });
      if (failures.length > 0) throw new Error(`the test storage failed: ${failures.slice(0, 3).join("; ")}`);
    },
  };
}
