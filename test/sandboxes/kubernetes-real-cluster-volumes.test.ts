/**
 * Volumes and egress policies on the real control plane (test/support/kubernetes-cluster.ts),
 * through the REST API as Cairn's own service account:
 * - a volume's claim is bound by the provisioner this test provides (a PersistentVolume made for
 *   the claim, as an operator's provisioner would; kube-controller-manager's binder binds them),
 *   and a pod mounting it is scheduled and runs once it is;
 * - an MCP connection's host opens exactly its addresses on port 443 in the sandbox's
 *   NetworkPolicy, which the real API server accepts; a sandbox with no connection gets a policy
 *   that lets nothing out;
 * - destroy removes the pod and the policy, and deleting the volume removes its claim;
 * - a claim the namespace's ResourceQuota refuses leaves the volume failed, with a reason and no
 *   internals, and never mounted.
 * The node runs no storage and no network plugin: what the policy enforces is the CNI's part.
 */
import type { V1NetworkPolicy, V1PersistentVolumeClaim, V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { objectName } from "../../plugins/sandbox-kubernetes/manifests.ts";
import { eventually } from "../support/eventually.ts";
import type { KubernetesTestCluster } from "../support/kubernetes-cluster.ts";
import {
  createCairnRuntime,
  expectCairnObjects,
  podPath,
  policyPath,
  useKubernetesTestCluster,
} from "../support/kubernetes-cluster-cairn.ts";
import type { TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  type SandboxClient,
} from "./sandbox-client.ts";

const useCluster = useKubernetesTestCluster();
const githubAddresses = ["140.82.112.22", "140.82.113.22"];

const claimPath = (cluster: KubernetesTestCluster, name: string) =>
  `/api/v1/namespaces/${cluster.sandboxNamespace}/persistentvolumeclaims/${name}`;

/** The test's provisioner: a volume of the claim's size and access modes, bound to that claim. */
async function provision(cluster: KubernetesTestCluster, claim: V1PersistentVolumeClaim) {
  const name = claim.metadata?.name as string;
  await cluster.admin.send("POST", "/api/v1/persistentvolumes?fieldValidation=Strict", {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: { name: `pv-${name}` },
    spec: {
      capacity: { storage: claim.spec?.resources?.requests?.storage },
      accessModes: claim.spec?.accessModes,
      persistentVolumeReclaimPolicy: "Retain",
      storageClassName: "",
      hostPath: { path: `/var/lib/test-provisioner/${name}` },
      claimRef: { namespace: cluster.sandboxNamespace, name, uid: claim.metadata?.uid },
    },
  });
}

describe("volumes and egress policies on a real Kubernetes control plane", () => {
  let test: TestPlatform;
  let client: SandboxClient;

  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite", {
      environment: { SVC_VOLUME_RATE_LIMIT_PER_MINUTE: "100000" },
      sandboxRuntime: createCairnRuntime(useCluster(), {
        resolveHost: async (host) => (host === "api.githubcopilot.com" ? githubAddresses : []),
      }),
    });
    client = await createSandboxClient(test);
  });
  afterAll(() => test?.close());

  it("runs a pod on a volume the provisioner bound, opens egress to the connection's addresses only, and removes it all", async () => {
    const cluster = useCluster();
    const volume = await client.sendJson<{ id: string }>("/v1/volumes", {
      method: "POST",
      json: { label: "data", size_gb: 3 },
    });
    expect(volume.status).toBe(202);
    const claimName = `cairn-volume-${volume.body.id}`;
    expect((await client.sendJson(`/v1/volumes/${volume.body.id}`)).body).toMatchObject({
      status: "ready",
      pvc_name: claimName,
    });
    const claim = (await cluster.admin.send("GET", claimPath(cluster, claimName))) as V1PersistentVolumeClaim;
    expect(claim.metadata?.labels).toEqual({
      "app.kubernetes.io/managed-by": "cairn",
      "cairn.dev/volume-id": volume.body.id,
      "cairn.dev/account-id": client.accountId,
    });
    expect(claim.spec).toMatchObject({
      accessModes: ["ReadWriteOnce"],
      resources: { requests: { storage: "3Gi" } },
    });
    expect(claim.status?.phase).toBe("Pending");
    await provision(cluster, claim);
    await eventually(async () => {
      const bound = (await cluster.admin.send(
        "GET",
        claimPath(cluster, claimName),
      )) as V1PersistentVolumeClaim;
      return bound.status?.phase === "Bound" ? true : undefined;
    });

    const connection = await client.sendJson("/v1/mcp-connections", {
      method: "POST",
      json: { label: "repo", catalog_id: "github" },
    });
    expect(connection.status).toBe(201);
    const session = await client.createActive({
      volume_mounts: { [volume.body.id]: "/data/" },
      mcp_connection_names: ["repo"],
    });
    const name = objectName(session.id);
    const pod = (await cluster.admin.send("GET", podPath(cluster, name))) as V1Pod;
    expect([pod.spec?.nodeName, pod.status?.phase]).toEqual(["kwok-node-0", "Running"]);
    expect(pod.spec?.volumes).toContainEqual({ name: "volume-0", persistentVolumeClaim: { claimName } });
    expect(pod.spec?.containers[0]?.volumeMounts).toContainEqual({ name: "volume-0", mountPath: "/data" });
    const echoed = await client.exec(session.id, "echo through the exec API");
    expect([echoed.body.exit_code, echoed.body.stdout]).toEqual([0, "through the exec API\n"]);

    const policy = (await cluster.admin.send("GET", policyPath(cluster, name))) as V1NetworkPolicy;
    expect(policy.spec).toEqual({
      podSelector: {
        matchLabels: { "app.kubernetes.io/managed-by": "cairn", "cairn.dev/session-id": session.id },
      },
      policyTypes: ["Ingress", "Egress"],
      egress: [
        {
          to: [{ namespaceSelector: {}, podSelector: { matchLabels: { "k8s-app": "kube-dns" } } }],
          ports: [
            { protocol: "UDP", port: 53 },
            { protocol: "TCP", port: 53 },
          ],
        },
        {
          to: [{ ipBlock: { cidr: "140.82.112.22/32" } }, { ipBlock: { cidr: "140.82.113.22/32" } }],
          ports: [{ protocol: "TCP", port: 443 }],
        },
      ],
    });

    // No connection: a policy that selects the pod and lets nothing in or out.
    const closed = await client.createActive();
    const closedPolicy = (await cluster.admin.send(
      "GET",
      policyPath(cluster, objectName(closed.id)),
    )) as V1NetworkPolicy;
    expect(closedPolicy.spec?.policyTypes).toEqual(["Ingress", "Egress"]);
    expect(closedPolicy.spec?.podSelector?.matchLabels).toMatchObject({ "cairn.dev/session-id": closed.id });
    expect([closedPolicy.spec?.egress ?? [], closedPolicy.spec?.ingress ?? []]).toEqual([[], []]);

    const inUse = await client.sendJson(`/v1/volumes/${volume.body.id}`, { method: "DELETE" });
    expect([inUse.status, errorCode(inUse.body)]).toEqual([409, "volume_in_use"]);
    expect((await client.destroy(session.id)).status).toBe(204);
    expect((await client.destroy(closed.id)).status).toBe(204);
    await expectCairnObjects(cluster, []);
    expect((await client.send(`/v1/volumes/${volume.body.id}`, { method: "DELETE" })).status).toBe(204);
    await eventually(async () =>
      (await cluster.admin.request("GET", claimPath(cluster, claimName))).status === 404 ? true : undefined,
    );
  });

  it("keeps a volume whose claim the namespace's ResourceQuota refuses as failed, without the quota's words, and never mounts it", async () => {
    const cluster = useCluster();
    const quotas = `/api/v1/namespaces/${cluster.sandboxNamespace}/resourcequotas`;
    await cluster.admin.send("POST", `${quotas}?fieldValidation=Strict`, {
      apiVersion: "v1",
      kind: "ResourceQuota",
      metadata: { name: "storage-budget" },
      spec: { hard: { "requests.storage": "2Gi" } },
    });
    // The quota admission refuses claims only once the quota controller has counted what is used.
    await eventually(async () => {
      const quota = (await cluster.admin.send("GET", `${quotas}/storage-budget`)) as {
        status?: { hard?: Record<string, string> };
      };
      return quota.status?.hard?.["requests.storage"] ? true : undefined;
    });
    try {
      const volume = await client.sendJson<{ id: string; status: string }>("/v1/volumes", {
        method: "POST",
        json: { size_gb: 5 },
      });
      expect([volume.status, volume.body.status]).toEqual([202, "queued"]);
      const got = await client.sendJson<Record<string, unknown>>(`/v1/volumes/${volume.body.id}`);
      expect(got.body).toMatchObject({
        status: "failed",
        pvc_name: null,
        failure_reason: "The runtime could not provision the volume's storage",
      });
      expect(JSON.stringify(got.body)).not.toContain("storage-budget");
      const claimName = `cairn-volume-${volume.body.id}`;
      expect((await cluster.admin.request("GET", claimPath(cluster, claimName))).status).toBe(404);
      const mounted = await client.create({ volume_mounts: { [volume.body.id]: "/data" } });
      expect([mounted.status, errorCode(mounted.body)]).toEqual([404, "not_found"]);
      // A failed volume can still be deleted: its claim was never made.
      expect((await client.send(`/v1/volumes/${volume.body.id}`, { method: "DELETE" })).status).toBe(204);
    } finally {
      await cluster.admin.send("DELETE", `${quotas}/storage-budget`);
    }
  });
});
