/**
 * The pure parts of Kubernetes snapshots: reading a VolumeSnapshot's restoreSize, and the
 * workspace volume a restore asks for when the server has no VolumeSnapshotClass any more.
 * The API calls are tested through REST on the real cluster in
 * test/sandboxes/kubernetes-real-cluster-snapshots.test.ts.
 */
import { describe, expect, test } from "vitest";
import { quantityBytes, workspaceVolume } from "./snapshots.ts";

const spec = {
  id: "0b9c6a52-2f4e-4d8a-9a51-6c1d2e3f4a5b",
  accountId: "account-1",
  size: "small" as const,
  storageGb: null,
  egressHosts: [],
  volumeMounts: [],
};

describe("quantityBytes", () => {
  test.each([
    ["5Gi", 5 * 1024 ** 3],
    ["3584Mi", 3584 * 1024 ** 2],
    ["5368709120", 5368709120],
    ["10G", 10e9],
    ["500M", 500e6],
    ["1e9", 1e9],
    ["1.5Gi", 1.5 * 1024 ** 3],
  ])("reads %s", (quantity, bytes) => {
    expect(quantityBytes(quantity)).toBe(bytes);
  });

  test.each([[undefined], [""], ["5 apples"], ["100m"], [42]])("gives null for %s", (quantity) => {
    expect(quantityBytes(quantity)).toBeNull();
  });
});

describe("workspaceVolume", () => {
  test("a restore on a server without a snapshot class is snapshots_not_supported naming the setting", () => {
    const settings = { snapshotClass: null, workspaceStorageClass: null };
    expect(() =>
      workspaceVolume(
        settings,
        { ...spec, fromSnapshot: { id: "snapshot-1", handle: "cairn-snapshot-1" } },
        "2Gi",
      ),
    ).toThrow(
      expect.objectContaining({
        code: "snapshots_not_supported",
        remediation: expect.stringContaining("SVC_KUBE_SNAPSHOT_CLASS"),
      }),
    );
    expect(workspaceVolume(settings, spec, "2Gi")).toEqual({ emptyDir: { sizeLimit: "2Gi" } });
  });

  test("without a storage class the claim uses the cluster's default, and the handle names the VolumeSnapshot", () => {
    const settings = { snapshotClass: "csi-snapclass", workspaceStorageClass: null };
    const volume = workspaceVolume(
      settings,
      { ...spec, fromSnapshot: { id: "x", handle: "cairn-snapshot-x" } },
      "2Gi",
    );
    expect(volume.ephemeral?.volumeClaimTemplate?.spec).toEqual({
      accessModes: ["ReadWriteOnce"],
      resources: { requests: { storage: "2Gi" } },
      dataSource: { apiGroup: "snapshot.storage.k8s.io", kind: "VolumeSnapshot", name: "cairn-snapshot-x" },
    });
  });
});
