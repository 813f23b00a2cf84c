/**
 * The Kubernetes runtime against a real control plane (test/support/kubernetes-cluster.ts: etcd,
 * kube-apiserver, controller manager, scheduler, kwok's fake node), through the REST API, as
 * Cairn's own service account from deploy/kubernetes with its real RBAC. The node runs no
 * containers: kwok moves the pods through their phases, and the node's exec endpoint runs a pod's
 * command in a bubblewrap sandbox over the pod's own folders (scripts/kubernetes-test-cluster:
 * pod_exec_server.go, pod-command.sh), so exec and the file operations take the real exec API path
 * (API server → node's kubelet port → command, exit codes on the status channel).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CoreV1Api, type V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPod, defaultSizes, objectName } from "../../plugins/sandbox-kubernetes/manifests.ts";
import {
  cairnKubeConfig,
  createCairnRuntime,
  expectCairnObjects,
  podPath,
  useKubernetesTestCluster,
} from "../support/kubernetes-cluster-cairn.ts";
import type { TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  type ExecOut,
  type SandboxClient,
} from "./sandbox-client.ts";

const useCluster = useKubernetesTestCluster();

describe("a sandbox on a real Kubernetes control plane", () => {
  let test: TestPlatform;
  let client: SandboxClient;

  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite", { sandboxRuntime: createCairnRuntime(useCluster()) });
    client = await createSandboxClient(test);
  });
  afterAll(() => test?.close());

  it("creates the pod, execs echo, writes and reads a file, lists, gets and destroys it", async () => {
    const cluster = useCluster();
    const session = await client.createActive();
    const podName = objectName(session.id);
    expect(session.connect?.pod_name).toBe(podName);
    const pod = (await cluster.admin.send("GET", podPath(cluster, podName))) as V1Pod;
    expect([pod.spec?.nodeName, pod.status?.phase]).toEqual(["kwok-node-0", "Running"]);

    const echoed = await client.exec(session.id, "echo hello from the pod; id -u; pwd");
    expect([echoed.status, echoed.body.exit_code, echoed.body.stdout]).toEqual([
      200,
      0,
      "hello from the pod\n65532\n/workspace\n",
    ]);
    const failed = await client.exec(session.id, "echo to stderr >&2; exit 3");
    expect([failed.body.exit_code, failed.body.stderr]).toEqual([3, "to stderr\n"]);

    const written = await client.sendJson<{ path: string; size: number; created: boolean }>(
      `/v1/sandboxes/${session.id}/files`,
      { method: "POST", json: { path: "notes/today.txt", content: "first line\nsecond line\n" } },
    );
    expect([written.status, written.body]).toEqual([
      200,
      { path: "/workspace/notes/today.txt", size: 23, created: true },
    ]);
    const viewed = await client.sendJson<{ content: string }>(`/v1/sandboxes/${session.id}/files/view`, {
      method: "POST",
      json: { path: "notes/today.txt" },
    });
    expect([viewed.status, viewed.body.content]).toEqual([200, "first line\nsecond line\n"]);
    // The file lives in the pod's /workspace, which a command sees too.
    const listed = await client.exec(session.id, "cat /workspace/notes/today.txt | wc -l");
    expect((listed.body as ExecOut).stdout).toBe("2\n");

    // …in the pod's own folder on the node, not on the host's /workspace.
    const onNode = join(
      cluster.podsDirectory,
      cluster.sandboxNamespace,
      podName,
      "workspace/notes/today.txt",
    );
    expect(readFileSync(onNode, "utf8")).toBe("first line\nsecond line\n");

    const sessions = await client.list(true);
    expect(sessions.body.map((entry) => entry.id)).toContain(session.id);
    expect((await client.get(session.id)).body.status).toBe("active");

    expect((await client.destroy(session.id)).status).toBe(204);
    expect((await client.get(session.id)).body.status).toBe("destroyed");
    await expectCairnObjects(cluster, []);
  });

  it("keeps each pod's files apart", async () => {
    const client = await createSandboxClient(test);
    const first = await client.createActive();
    const second = await client.createActive();
    await client.exec(first.id, "echo mine > only-here.txt");
    const other = await client.exec(second.id, "ls /workspace; test -e only-here.txt; echo $?");
    expect(other.body.stdout).toBe("1\n");
    await client.destroy(first.id);
    await client.destroy(second.id);
  });
});

describe("a pod no node can take", () => {
  // Regression: the create waited out its deadline with only "not running after N ms", which
  // said nothing of why; it now names the scheduler's reason (and still cleans up after itself).
  it("fails the create at the start deadline naming the scheduler's reason, and deletes its objects", async () => {
    const cluster = useCluster();
    const runtime = createCairnRuntime(cluster, {
      sizes: { small: { cpuRequest: "250m", cpuLimit: "1", memory: "4Ti" } },
      // Long enough for a busy scheduler to have said why before the deadline.
      startTimeoutMs: 10_000,
    });
    const id = "5c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f";
    const failure = await runtime
      .create({
        id,
        accountId: "account-1",
        size: "small",
        storageGb: null,
        egressHosts: [],
        volumeMounts: [],
      })
      .then(
        () => null,
        (error: { code?: string; cause?: unknown }) => error,
      );
    expect(failure?.code).toBe("sandbox_operation_failed");
    expect(String(failure?.cause)).toMatch(
      /sandbox pod not running after 10000 ms \(not scheduled: Unschedulable 0\/1 nodes are available: 1 Insufficient memory/,
    );
    await expectCairnObjects(cluster, []);
    await runtime.close();
  });
});

describe("the API server's Pod Security Admission", () => {
  const spec = {
    id: "0b5e2f7c-1d3a-4c6b-9e8f-7a6b5c4d3e2f",
    accountId: "account-1",
    size: "small" as const,
    storageGb: null,
    egressHosts: [],
    volumeMounts: [],
  };
  const options = {
    image: "docker.io/library/debian:bookworm-slim",
    sizes: defaultSizes,
    activeDeadlineSeconds: 600,
    runtimeClassName: null,
    egressPorts: [443],
    allowPrivateEgress: false,
    volumeClaimName: (volumeId: string) => `cairn-volume-${volumeId}`,
    volumeStorageClass: null,
  };

  it("refuses at restricted a sandbox pod that keeps root and privilege escalation, even from Cairn's own account", async () => {
    const cluster = useCluster();
    const core = cairnKubeConfig(cluster).makeApiClient(CoreV1Api);
    const pod = buildPod(spec, options);
    // Cairn's pod, less what the restricted profile demands.
    delete pod.spec?.securityContext?.runAsNonRoot;
    const container = pod.spec?.containers[0];
    if (container?.securityContext) {
      delete container.securityContext.runAsNonRoot;
      container.securityContext.allowPrivilegeEscalation = true;
      delete container.securityContext.capabilities;
    }
    const refused = await core.createNamespacedPod({ namespace: cluster.sandboxNamespace, body: pod }).then(
      () => null,
      (error: { code?: number; body?: string }) => error,
    );
    expect(refused?.code).toBe(403);
    const message = (JSON.parse(refused?.body ?? "{}") as { message?: string }).message ?? "";
    expect(message).toContain('violates PodSecurity "restricted:latest"');
    expect(message).toMatch(/allowPrivilegeEscalation != false/);
    expect(message).toMatch(/unrestricted capabilities/);
    expect(message).toMatch(/runAsNonRoot != true/);
    // The pod Cairn builds itself is admitted by the same server.
    const admitted = await core.createNamespacedPod({
      namespace: cluster.sandboxNamespace,
      body: buildPod(spec, options),
      dryRun: "All",
    });
    expect(admitted.metadata?.name).toBe(objectName(spec.id));
  });
});
