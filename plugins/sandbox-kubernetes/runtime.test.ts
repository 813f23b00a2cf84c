import { HttpResponse, http } from "msw";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { ServiceError } from "../../core/index.ts";
import type { SandboxSpec } from "../../core/ports/sandbox-runtime.ts";
import {
  apiServer,
  bearerToken,
  createFakeKubernetesCluster,
  testKubeConfig,
} from "../../test/doubles/fake-kubernetes-cluster.ts";
import { createKubernetesSandboxRuntime, type KubernetesSandboxRuntimeSettings } from "./runtime.ts";

const namespace = "cairn-sandboxes";
const sandboxId = "3f1c2a9e-8b7d-4c6e-9f00-1a2b3c4d5e6f";
const name = `cairn-sandbox-${sandboxId}`;
const podsPath = `/api/v1/namespaces/${namespace}/pods`;
const policiesPath = `/apis/networking.k8s.io/v1/namespaces/${namespace}/networkpolicies`;
const labels = {
  "app.kubernetes.io/managed-by": "cairn",
  "cairn.dev/session-id": sandboxId,
  "cairn.dev/account-id": "acct-42",
};
const spec: SandboxSpec = {
  id: sandboxId,
  accountId: "acct-42",
  size: "medium",
  storageGb: 3.5,
  egressHosts: [],
  volumeMounts: [{ volumeId: "vol-1", mountPath: "/mnt/data" }],
};

const expectedPod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, labels, annotations: { "cairn.dev/mount-paths": '["/mnt/data"]' } },
  spec: {
    restartPolicy: "Never",
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    activeDeadlineSeconds: 7200,
    terminationGracePeriodSeconds: 0,
    securityContext: {
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      fsGroup: 65532,
      fsGroupChangePolicy: "OnRootMismatch",
      seccompProfile: { type: "RuntimeDefault" },
    },
    containers: [
      {
        name: "sandbox",
        image: "registry.test/cairn/sandbox:1",
        imagePullPolicy: "IfNotPresent",
        command: ["sleep", "infinity"],
        workingDir: "/workspace",
        env: [
          { name: "HOME", value: "/workspace" },
          { name: "TMPDIR", value: "/tmp" },
        ],
        resources: {
          requests: { cpu: "500m", memory: "4Gi", "ephemeral-storage": "3584Mi" },
          limits: { cpu: "2", memory: "4Gi", "ephemeral-storage": "3584Mi" },
        },
        securityContext: {
          allowPrivilegeEscalation: false,
          privileged: false,
          readOnlyRootFilesystem: true,
          runAsNonRoot: true,
          capabilities: { drop: ["ALL"] },
          seccompProfile: { type: "RuntimeDefault" },
        },
        volumeMounts: [
          { name: "workspace", mountPath: "/workspace" },
          { name: "tmp", mountPath: "/tmp" },
          { name: "volume-0", mountPath: "/mnt/data" },
        ],
      },
    ],
    volumes: [
      { name: "workspace", emptyDir: { sizeLimit: "3584Mi" } },
      { name: "tmp", emptyDir: { sizeLimit: "3584Mi" } },
      { name: "volume-0", persistentVolumeClaim: { claimName: "cairn-volume-vol-1" } },
    ],
  },
};

const denyAllPolicy = {
  apiVersion: "networking.k8s.io/v1",
  kind: "NetworkPolicy",
  metadata: { name, labels },
  spec: {
    podSelector: {
      matchLabels: { "app.kubernetes.io/managed-by": "cairn", "cairn.dev/session-id": sandboxId },
    },
    policyTypes: ["Ingress", "Egress"],
    ingress: [],
    egress: [],
  },
};

const cluster = createFakeKubernetesCluster();
beforeAll(() => cluster.network.enable());
afterEach(async () => {
  cluster.network.resetHandlers();
  await cluster.takeRequests();
});
afterAll(() => cluster.network.disable());

function runtime(settings: Partial<KubernetesSandboxRuntimeSettings> = {}) {
  return createKubernetesSandboxRuntime({
    namespace,
    kubeConfig: testKubeConfig(),
    image: "registry.test/cairn/sandbox:1",
    pollIntervalMs: 1,
    ...settings,
  });
}

function pod(phase: string, containerState: Record<string, unknown> = {}) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, labels },
    status: {
      phase,
      containerStatuses: [{ name: "sandbox", ready: phase === "Running", state: containerState }],
    },
  };
}

function status(code: number, reason: string, message: string) {
  return HttpResponse.json(
    { kind: "Status", apiVersion: "v1", status: "Failure", message, reason, code },
    { status: code },
  );
}

/** Answers creates with the object sent and reads with the given pods in turn (the last one repeats). */
function acceptCreate(...reads: Array<ReturnType<typeof pod>>) {
  cluster.network.use(
    http.post(`${apiServer}${policiesPath}`, async ({ request }) =>
      HttpResponse.json(await request.json(), { status: 201 }),
    ),
    http.post(`${apiServer}${podsPath}`, async ({ request }) =>
      HttpResponse.json(await request.json(), { status: 201 }),
    ),
    http.get(`${apiServer}${podsPath}/${name}`, () =>
      HttpResponse.json(reads.length > 1 ? reads.shift() : reads[0]),
    ),
  );
}

function acceptDeletes() {
  cluster.network.use(
    http.delete(`${apiServer}${podsPath}/${name}`, () => HttpResponse.json(pod("Running"))),
    http.delete(`${apiServer}${policiesPath}/${name}`, () =>
      HttpResponse.json({ kind: "Status", status: "Success" }),
    ),
  );
}

describe("create", () => {
  test("creates the deny-all NetworkPolicy, then the restricted pod, and polls until it runs", async () => {
    acceptCreate(
      pod("Pending"),
      pod("Pending", { waiting: { reason: "ContainerCreating" } }),
      pod("Running", { running: {} }),
    );

    const connect = await runtime().create(spec);

    expect(connect).toEqual({
      podName: name,
      note: `Kubernetes pod ${name} in namespace ${namespace}; no network unless hosts were granted.`,
    });
    const requests = await cluster.takeRequests();
    expect(requests.map(({ method, path, query, body }) => ({ method, path, query, body }))).toEqual([
      { method: "POST", path: policiesPath, query: {}, body: denyAllPolicy },
      { method: "POST", path: podsPath, query: {}, body: expectedPod },
      { method: "GET", path: `${podsPath}/${name}`, query: {}, body: null },
      { method: "GET", path: `${podsPath}/${name}`, query: {}, body: null },
      { method: "GET", path: `${podsPath}/${name}`, query: {}, body: null },
    ]);
    expect(requests[0].headers.get("authorization")).toBe(`Bearer ${bearerToken}`);
    expect(requests[1].headers.get("content-type")).toContain("application/json");
  });

  test("granted hosts open DNS and HTTPS to exactly their public addresses; size and storage defaults apply", async () => {
    acceptCreate(pod("Running", { running: {} }));
    const resolved: Record<string, string[]> = {
      "api.githubcopilot.com": ["140.82.112.22", "2606:50c0:8000::154", "10.1.2.3"],
      "mcp.slack.com": ["54.192.1.7", "140.82.112.22"],
    };
    const asked: string[] = [];
    await runtime({
      runtimeClassName: "gvisor",
      resolveHost: async (host) => {
        asked.push(host);
        return resolved[host] ?? [];
      },
    }).create({
      ...spec,
      size: "small",
      storageGb: null,
      volumeMounts: [],
      egressHosts: ["api.githubcopilot.com", "mcp.slack.com", "151.101.1.69"],
    });

    expect(asked).toEqual(["api.githubcopilot.com", "mcp.slack.com"]);
    const [policy, created] = await cluster.takeRequests();
    expect(policy.body).toEqual({
      ...denyAllPolicy,
      spec: {
        ...denyAllPolicy.spec,
        egress: [
          {
            to: [{ namespaceSelector: {}, podSelector: { matchLabels: { "k8s-app": "kube-dns" } } }],
            ports: [
              { protocol: "UDP", port: 53 },
              { protocol: "TCP", port: 53 },
            ],
          },
          {
            // The private 10.1.2.3 is left out; the shared address appears once.
            to: [
              { ipBlock: { cidr: "140.82.112.22/32" } },
              { ipBlock: { cidr: "151.101.1.69/32" } },
              { ipBlock: { cidr: "2606:50c0:8000::154/128" } },
              { ipBlock: { cidr: "54.192.1.7/32" } },
            ],
            ports: [{ protocol: "TCP", port: 443 }],
          },
        ],
      },
    });
    const podSpec = (created.body as typeof expectedPod).spec;
    expect(podSpec).toMatchObject({ runtimeClassName: "gvisor" });
    expect(podSpec.containers[0].resources).toEqual({
      requests: { cpu: "250m", memory: "1Gi", "ephemeral-storage": "2Gi" },
      limits: { cpu: "1", memory: "1Gi", "ephemeral-storage": "2Gi" },
    });
    expect(podSpec.volumes).toEqual([
      { name: "workspace", emptyDir: { sizeLimit: "2Gi" } },
      { name: "tmp", emptyDir: { sizeLimit: "2Gi" } },
    ]);
  });

  test("a granted host with no public address fails the create before any request", async () => {
    const error = (await runtime({ resolveHost: async () => ["127.0.0.1", "169.254.169.254"] })
      .create({ ...spec, egressHosts: ["internal.example"] })
      .catch((caught: unknown) => caught)) as ServiceError;
    expect(error).toMatchObject({
      code: "sandbox_operation_failed",
      message: "Could not create the sandbox",
    });
    expect(JSON.stringify(error.toBody())).not.toContain("internal.example");
    expect(await cluster.takeRequests()).toEqual([]);
  });

  test("private addresses of a granted host are kept when private egress is allowed", async () => {
    acceptCreate(pod("Running", { running: {} }));
    await runtime({ allowPrivateEgress: true, resolveHost: async () => ["10.1.2.3"] }).create({
      ...spec,
      egressHosts: ["mcp.internal.example"],
    });
    const [policy] = await cluster.takeRequests();
    const egress = (policy.body as typeof denyAllPolicy).spec.egress as Array<{ to: unknown[] }>;
    expect(egress[1].to).toEqual([{ ipBlock: { cidr: "10.1.2.3/32" } }]);
  });

  test("a pod that never runs within the deadline fails and is cleaned up", async () => {
    acceptCreate(pod("Pending", { waiting: { reason: "ImagePullBackOff" } }));
    acceptDeletes();
    const error = await runtime({ startTimeoutMs: 20 })
      .create(spec)
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({
      code: "sandbox_operation_failed",
      message: "Could not create the sandbox",
    });
    const requests = await cluster.takeRequests();
    // How many polls fit in the deadline depends on the machine's load: at least one happened.
    expect(requests.filter((request) => request.method === "GET").length).toBeGreaterThanOrEqual(1);
    expect(requests.slice(-2).map(({ method, path, query }) => ({ method, path, query }))).toEqual([
      { method: "DELETE", path: `${podsPath}/${name}`, query: { gracePeriodSeconds: "0" } },
      { method: "DELETE", path: `${policiesPath}/${name}`, query: { gracePeriodSeconds: "0" } },
    ]);
  });

  test("a pod that can never run (invalid image) fails at the first poll", async () => {
    acceptCreate(pod("Pending", { waiting: { reason: "InvalidImageName" } }));
    acceptDeletes();
    await expect(runtime().create(spec)).rejects.toMatchObject({ code: "sandbox_operation_failed" });
    const methods = (await cluster.takeRequests()).map((request) => request.method);
    expect(methods).toEqual(["POST", "POST", "GET", "DELETE", "DELETE"]);
  });

  test("409 on the pod maps to sandbox_operation_failed without the API message, and removes only the policy", async () => {
    cluster.network.use(
      http.post(`${apiServer}${policiesPath}`, async ({ request }) =>
        HttpResponse.json(await request.json(), { status: 201 }),
      ),
      http.post(`${apiServer}${podsPath}`, () =>
        status(409, "AlreadyExists", `pods "${name}" already exists`),
      ),
    );
    acceptDeletes();
    const error = (await runtime()
      .create(spec)
      .catch((caught: unknown) => caught)) as ServiceError;

    expect(error).toMatchObject({ code: "sandbox_operation_failed" });
    expect(JSON.stringify(error.toBody())).not.toContain("already exists");
    expect((error.cause as { code?: number }).code).toBe(409);
    const requests = await cluster.takeRequests();
    expect(requests.map(({ method, path }) => `${method} ${path}`)).toEqual([
      `POST ${policiesPath}`,
      `POST ${podsPath}`,
      `DELETE ${policiesPath}/${name}`,
    ]);
  });

  test("500 on the NetworkPolicy creates no pod", async () => {
    cluster.network.use(
      http.post(`${apiServer}${policiesPath}`, () => status(500, "InternalError", "etcd is on fire")),
    );
    const error = (await runtime()
      .create(spec)
      .catch((caught: unknown) => caught)) as ServiceError;
    expect(error).toMatchObject({
      code: "sandbox_operation_failed",
      message: "Could not create the sandbox",
    });
    expect(JSON.stringify(error.toBody())).not.toContain("etcd");
    expect((await cluster.takeRequests()).map(({ method, path }) => `${method} ${path}`)).toEqual([
      `POST ${policiesPath}`,
    ]);
  });

  test("an id that cannot name a pod is refused before any request", async () => {
    await expect(runtime().create({ ...spec, id: "Not_A_Name" })).rejects.toMatchObject({
      code: "sandbox_operation_failed",
    });
    expect(await cluster.takeRequests()).toEqual([]);
  });
});

describe("destroy", () => {
  test("deletes the pod and the policy with no grace period", async () => {
    acceptDeletes();
    await runtime().destroy(sandboxId);
    const requests = await cluster.takeRequests();
    expect(requests.map(({ method, path, query, body }) => ({ method, path, query, body }))).toEqual([
      { method: "DELETE", path: `${podsPath}/${name}`, query: { gracePeriodSeconds: "0" }, body: null },
      { method: "DELETE", path: `${policiesPath}/${name}`, query: { gracePeriodSeconds: "0" }, body: null },
    ]);
  });

  test("404 from the API is success (idempotent)", async () => {
    cluster.network.use(
      http.delete(`${apiServer}${podsPath}/${name}`, () => status(404, "NotFound", "not found")),
      http.delete(`${apiServer}${policiesPath}/${name}`, () => status(404, "NotFound", "not found")),
    );
    await expect(runtime().destroy(sandboxId)).resolves.toBeUndefined();
    expect(await cluster.takeRequests()).toHaveLength(2);
  });

  test("500 from the API is sandbox_operation_failed", async () => {
    cluster.network.use(
      http.delete(`${apiServer}${podsPath}/${name}`, () => status(500, "InternalError", "boom")),
    );
    await expect(runtime().destroy(sandboxId)).rejects.toMatchObject({
      code: "sandbox_operation_failed",
      message: "Could not destroy the sandbox",
    });
  });

  test("an id that cannot name a pod was never created: nothing to delete", async () => {
    await expect(runtime().destroy("../etc")).resolves.toBeUndefined();
    expect(await cluster.takeRequests()).toEqual([]);
  });
});

describe("list", () => {
  test("lists the pods by the managed-by label and returns their session ids and mount roots", async () => {
    const other = "9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4";
    cluster.network.use(
      http.get(`${apiServer}${podsPath}`, () =>
        HttpResponse.json({
          kind: "PodList",
          apiVersion: "v1",
          metadata: {},
          items: [
            { metadata: { name, labels, annotations: { "cairn.dev/mount-paths": '["/mnt/data"]' } } },
            {
              metadata: {
                name: `cairn-sandbox-${other}`,
                labels: { ...labels, "cairn.dev/session-id": other },
              },
            },
          ],
        }),
      ),
    );
    const sandboxes = runtime();
    expect(await sandboxes.list()).toEqual([sandboxId, other]);
    const [request] = await cluster.takeRequests();
    expect({ method: request.method, path: request.path, query: request.query }).toEqual({
      method: "GET",
      path: podsPath,
      query: { labelSelector: "app.kubernetes.io/managed-by=cairn" },
    });
    expect(sandboxes.files(sandboxId).roots()).toEqual(["/workspace", "/tmp", "/mnt/data"]);
    expect(sandboxes.files(other).roots()).toEqual(["/workspace", "/tmp"]);
  });

  test("500 from the API is sandbox_operation_failed", async () => {
    cluster.network.use(http.get(`${apiServer}${podsPath}`, () => status(500, "InternalError", "boom")));
    await expect(runtime().list()).rejects.toMatchObject({ code: "sandbox_operation_failed" });
  });
});

describe("close", () => {
  test("stops a create that is still waiting for its pod", async () => {
    acceptCreate(pod("Pending"));
    acceptDeletes();
    const sandboxes = runtime({ pollIntervalMs: 5, startTimeoutMs: 60_000 });
    const creating = sandboxes.create(spec);
    await expect
      .poll(async () => (await cluster.takeRequests()).some((request) => request.method === "GET"))
      .toBe(true);
    await sandboxes.close();
    await expect(creating).rejects.toMatchObject({ code: "sandbox_operation_failed" });
  });
});

test("files(id) of a created sandbox has the volume mount paths as roots", async () => {
  acceptCreate(pod("Running", { running: {} }));
  const sandboxes = runtime();
  await sandboxes.create(spec);
  expect(sandboxes.files(sandboxId).roots()).toEqual(["/workspace", "/tmp", "/mnt/data"]);
});

// Regression: a replica that started before another replica created the sandbox refused its
// volume paths as outside the sandbox (found on the real cluster, issue 46).
test("loadSandbox learns the volume mount paths of a sandbox this replica neither created nor listed", async () => {
  cluster.network.use(
    http.get(`${apiServer}${podsPath}/${name}`, () =>
      HttpResponse.json({
        metadata: { name, labels, annotations: { "cairn.dev/mount-paths": '["/mnt/data"]' } },
      }),
    ),
  );
  const sandboxes = runtime();
  expect(sandboxes.files(sandboxId).roots()).toEqual(["/workspace", "/tmp"]);
  await sandboxes.loadSandbox?.(sandboxId);
  expect(sandboxes.files(sandboxId).roots()).toEqual(["/workspace", "/tmp", "/mnt/data"]);
  await sandboxes.loadSandbox?.(sandboxId);
  const requests = await cluster.takeRequests();
  expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([`GET ${podsPath}/${name}`]);
});

describe("volumes", () => {
  const volumeId = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
  const claimsPath = `/api/v1/namespaces/${namespace}/persistentvolumeclaims`;
  const claimName = `cairn-volume-${volumeId}`;

  test("creates one ReadWriteOnce claim of exactly the volume's size and returns its name", async () => {
    cluster.network.use(
      http.post(`${apiServer}${claimsPath}`, async ({ request }) =>
        HttpResponse.json(await request.json(), { status: 201 }),
      ),
    );
    const result = await runtime().createVolume?.({
      id: volumeId,
      accountId: "acct-42",
      sizeBytes: 5 * 1024 ** 3,
    });
    expect(result).toEqual({ pvcName: claimName });
    const requests = await cluster.takeRequests();
    expect(requests.map(({ method, path, query, body }) => ({ method, path, query, body }))).toEqual([
      {
        method: "POST",
        path: claimsPath,
        query: {},
        body: {
          apiVersion: "v1",
          kind: "PersistentVolumeClaim",
          metadata: {
            name: claimName,
            labels: {
              "app.kubernetes.io/managed-by": "cairn",
              "cairn.dev/volume-id": volumeId,
              "cairn.dev/account-id": "acct-42",
            },
          },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "5Gi" } } },
        },
      },
    ]);
  });

  test("a fractional size is rounded up to whole mebibytes; the storage class is named when set", async () => {
    cluster.network.use(
      http.post(`${apiServer}${claimsPath}`, async ({ request }) =>
        HttpResponse.json(await request.json(), { status: 201 }),
      ),
    );
    await runtime({ volumeStorageClass: "fast-ssd" }).createVolume?.({
      id: volumeId,
      accountId: "acct-42",
      sizeBytes: Math.ceil((2.5 * 1024 ** 3) / 4096) * 4096 + 1,
    });
    const [request] = await cluster.takeRequests();
    expect((request.body as { spec: unknown }).spec).toEqual({
      accessModes: ["ReadWriteOnce"],
      storageClassName: "fast-ssd",
      resources: { requests: { storage: "2561Mi" } },
    });
  });

  test("an API failure is sandbox_operation_failed without the API's message", async () => {
    cluster.network.use(
      http.post(`${apiServer}${claimsPath}`, () => status(403, "Forbidden", "quota exceeded for storage")),
    );
    const error = (await runtime()
      .createVolume?.({ id: volumeId, accountId: "acct-42", sizeBytes: 1024 ** 3 })
      .catch((caught: unknown) => caught)) as ServiceError;
    expect(error).toMatchObject({ code: "sandbox_operation_failed", message: "Could not create the volume" });
    expect(JSON.stringify(error.toBody())).not.toContain("quota");
  });

  test("deletes the claim; a claim already gone is success; an id that names no claim sends nothing", async () => {
    cluster.network.use(http.delete(`${apiServer}${claimsPath}/${claimName}`, () => HttpResponse.json({})));
    await runtime().deleteVolume?.(volumeId);
    expect(
      (await cluster.takeRequests()).map(({ method, path, query }) => ({ method, path, query })),
    ).toEqual([{ method: "DELETE", path: `${claimsPath}/${claimName}`, query: {} }]);
    cluster.network.use(
      http.delete(`${apiServer}${claimsPath}/${claimName}`, () => status(404, "NotFound", "not found")),
    );
    await expect(runtime().deleteVolume?.(volumeId)).resolves.toBeUndefined();
    await cluster.takeRequests();
    await runtime().deleteVolume?.("../etc");
    expect(await cluster.takeRequests()).toEqual([]);
  });

  test("a failed claim delete is sandbox_operation_failed", async () => {
    cluster.network.use(
      http.delete(`${apiServer}${claimsPath}/${claimName}`, () => status(500, "InternalError", "boom")),
    );
    await expect(runtime().deleteVolume?.(volumeId)).rejects.toMatchObject({
      code: "sandbox_operation_failed",
      message: "Could not delete the volume",
    });
  });
});
