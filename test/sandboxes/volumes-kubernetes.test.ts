/**
 * Volumes and MCP connections through the REST API on the Kubernetes runtime, on both databases,
 * with msw playing the API server (test/doubles/fake-kubernetes-cluster.ts): the exact claim a
 * volume creates, the pod that mounts it and the egress policy of a connection's host, the 409
 * while the pod's session is active, and the claim deleted with the volume.
 */
import { HttpResponse, http } from "msw";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createKubernetesSandboxRuntime } from "../../plugins/sandbox-kubernetes/runtime.ts";
import {
  apiServer,
  createFakeKubernetesCluster,
  testKubeConfig,
} from "../doubles/fake-kubernetes-cluster.ts";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  type SandboxClient,
} from "./sandbox-client.ts";

const namespace = "cairn-sandboxes";
const base = `/api/v1/namespaces/${namespace}`;
const policiesPath = `/apis/networking.k8s.io/v1/namespaces/${namespace}/networkpolicies`;
const githubAddresses = ["140.82.112.22", "140.82.113.22"];

const cluster = createFakeKubernetesCluster();
beforeAll(() => cluster.network.enable());
afterEach(async () => {
  cluster.network.resetHandlers();
  await cluster.takeRequests();
});
afterAll(() => cluster.network.disable());

const echo = async ({ request }: { request: Request }) =>
  HttpResponse.json(await request.json(), { status: 201 });

/** A cluster that accepts every create and delete and reports every pod running. */
function acceptEverything() {
  cluster.network.use(
    http.post(`${apiServer}${base}/persistentvolumeclaims`, echo),
    http.delete(`${apiServer}${base}/persistentvolumeclaims/:name`, () => HttpResponse.json({})),
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
  );
}

describe.each(storageTargets)("volumes and connections on the Kubernetes runtime, on %s", (target) => {
  let test: TestPlatform;
  let client: SandboxClient;

  beforeAll(async () => {
    test = await createSandboxPlatform(target, {
      environment: { SVC_VOLUME_RATE_LIMIT_PER_MINUTE: "100000" },
      sandboxRuntime: createKubernetesSandboxRuntime({
        namespace,
        kubeConfig: testKubeConfig(),
        image: "registry.test/cairn/sandbox:1",
        pollIntervalMs: 1,
        resolveHost: async (host) => (host === "api.githubcopilot.com" ? githubAddresses : []),
      }),
    });
    client = await createSandboxClient(test);
  });
  afterAll(() => test.close());

  it("creates the volume's claim, mounts it in the pod, opens egress to the connection's host only, and deletes the claim with the volume", async () => {
    acceptEverything();
    const volume = await client.sendJson<{ id: string }>("/v1/volumes", {
      method: "POST",
      json: { label: "data", size_gb: 3 },
    });
    expect(volume.status).toBe(202);
    const claimName = `cairn-volume-${volume.body.id}`;
    expect((await client.sendJson(`/v1/volumes/${volume.body.id}`)).body).toMatchObject({
      status: "ready",
      pvc_name: claimName,
      size_gb: 3,
    });
    const [claim] = await cluster.takeRequests();
    expect({ method: claim.method, path: claim.path, body: claim.body }).toEqual({
      method: "POST",
      path: `${base}/persistentvolumeclaims`,
      body: {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: {
          name: claimName,
          labels: {
            "app.kubernetes.io/managed-by": "cairn",
            "cairn.dev/volume-id": volume.body.id,
            "cairn.dev/account-id": client.accountId,
          },
        },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "3Gi" } } },
      },
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
    expect(session).toMatchObject({
      runtime: "kubernetes",
      connect: { pod_name: `cairn-sandbox-${session.id}` },
    });
    const [policy, pod] = await cluster.takeRequests();
    expect(policy.path).toBe(policiesPath);
    expect((policy.body as { spec: { egress: unknown[] } }).spec.egress[1]).toEqual({
      to: [{ ipBlock: { cidr: "140.82.112.22/32" } }, { ipBlock: { cidr: "140.82.113.22/32" } }],
      ports: [{ protocol: "TCP", port: 443 }],
    });
    const podSpec = (
      pod.body as {
        metadata: { annotations: Record<string, string> };
        spec: { containers: Array<{ volumeMounts: unknown[] }>; volumes: unknown[] };
      }
    ).spec;
    expect(podSpec.containers[0].volumeMounts).toEqual([
      { name: "workspace", mountPath: "/workspace" },
      { name: "tmp", mountPath: "/tmp" },
      { name: "volume-0", mountPath: "/data" },
    ]);
    expect(podSpec.volumes).toContainEqual({ name: "volume-0", persistentVolumeClaim: { claimName } });

    const inUse = await client.sendJson(`/v1/volumes/${volume.body.id}`, { method: "DELETE" });
    expect([inUse.status, errorCode(inUse.body)]).toEqual([409, "volume_in_use"]);
    expect(await cluster.takeRequests()).toEqual([]);

    expect((await client.destroy(session.id)).status).toBe(204);
    await cluster.takeRequests();
    expect((await client.send(`/v1/volumes/${volume.body.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await cluster.takeRequests()).map(({ method, path }) => `${method} ${path}`)).toEqual([
      `DELETE ${base}/persistentvolumeclaims/${claimName}`,
    ]);
  });

  it("keeps a volume whose claim the cluster refuses as failed, with a reason and no internals, and never mounts it", async () => {
    cluster.network.use(
      http.post(`${apiServer}${base}/persistentvolumeclaims`, () =>
        HttpResponse.json(
          {
            kind: "Status",
            status: "Failure",
            message: "exceeded quota: storage-etcd",
            reason: "Forbidden",
            code: 403,
          },
          { status: 403 },
        ),
      ),
    );
    const volume = await client.sendJson<{ id: string; status: string }>("/v1/volumes", {
      method: "POST",
      json: { size_gb: 1 },
    });
    expect([volume.status, volume.body.status]).toEqual([202, "queued"]);
    const got = await client.sendJson<Record<string, unknown>>(`/v1/volumes/${volume.body.id}`);
    expect(got.body).toMatchObject({
      status: "failed",
      pvc_name: null,
      failure_reason: "The runtime could not provision the volume's storage",
    });
    expect(JSON.stringify(got.body)).not.toContain("etcd");
    const mounted = await client.create({ volume_mounts: { [volume.body.id]: "/data" } });
    expect([mounted.status, errorCode(mounted.body)]).toEqual([404, "not_found"]);
    // A failed volume can still be deleted (its claim was never made; a missing claim is fine).
    cluster.network.use(
      http.delete(`${apiServer}${base}/persistentvolumeclaims/:name`, () =>
        HttpResponse.json(
          { kind: "Status", status: "Failure", reason: "NotFound", code: 404 },
          { status: 404 },
        ),
      ),
    );
    expect((await client.send(`/v1/volumes/${volume.body.id}`, { method: "DELETE" })).status).toBe(204);
  });
});
