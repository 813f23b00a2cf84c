/**
 * An image build's Job on the real control plane (test/support/kubernetes-cluster.ts), through the
 * REST API as Cairn's own service account, in a build namespace an operator set up as
 * deploy/kubernetes/30-config.yaml says builds need (one that admits kaniko's root pod, and the
 * grant for jobs and pods/log): the Job is created, kube-controller-manager's Job controller makes
 * its pod, the scheduler places it, the fake node runs it to completion, the Job is read as
 * complete, and Cairn deletes it with its pod. The build itself cannot run here (the node runs no
 * containers), so no digest comes back: the image is failed with that reason. In a namespace whose
 * Pod Security refuses the build pod (the sandbox namespace, `restricted`, where builds run when
 * SVC_KUBE_BUILD_NAMESPACE is unset), the build fails at once with the refusal, before any Job,
 * instead of waiting out the Job's deadline. The builder is the plugin's, made from the settings.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { imageJobName } from "../../plugins/sandbox-kubernetes/image-build-job.ts";
import { eventually } from "../support/eventually.ts";
import type { KubernetesTestCluster } from "../support/kubernetes-cluster.ts";
import { createCairnRuntime, useKubernetesTestCluster } from "../support/kubernetes-cluster-cairn.ts";
import type { TestPlatform } from "../support/platforms.ts";
import { createSandboxClient, createSandboxPlatform, type SandboxClient } from "./sandbox-client.ts";

const useCluster = useKubernetesTestCluster();
const buildNamespace = "cairn-builds";

/**
 * Cairn as its own service account, its image builder made by the Kubernetes plugin from the
 * configuration as a server makes it (KUBECONFIG, SVC_KUBE_BUILD_NAMESPACE when given, else the
 * sandbox namespace); it polls its Jobs every 2 s, as in production.
 */
const buildingPlatform = (cluster: KubernetesTestCluster, buildNamespace?: string) => {
  process.env.KUBECONFIG = cluster.cairnKubeConfigPath;
  return createSandboxPlatform("sqlite", {
    environment: {
      SVC_IMAGE_BUILD_RATE_LIMIT_PER_MINUTE: "100000",
      SVC_SANDBOX_RUNTIME: "kubernetes",
      SVC_KUBE_NAMESPACE: cluster.sandboxNamespace,
      SVC_KUBE_IMAGE_REPOSITORY: "registry.test/cairn/images",
      ...(buildNamespace === undefined ? {} : { SVC_KUBE_BUILD_NAMESPACE: buildNamespace }),
    },
    sandboxRuntime: createCairnRuntime(cluster),
  });
};

/** The image once its build has ended. */
const settled = (client: SandboxClient, id: string) =>
  eventually(
    async () => {
      const read = await client.sendJson<Record<string, unknown>>(`/v1/images/${id}`);
      return read.body.status === "queued" || read.body.status === "building" ? undefined : read.body;
    },
    { attempts: 1_200 },
  );

describe("image build Jobs on a real Kubernetes control plane", () => {
  let test: TestPlatform;
  let client: SandboxClient;

  beforeAll(async () => {
    const cluster = useCluster();
    const { admin } = cluster;
    await admin.send("POST", "/api/v1/namespaces?fieldValidation=Strict", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: buildNamespace, labels: { "pod-security.kubernetes.io/enforce": "privileged" } },
    });
    const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${buildNamespace}`;
    await admin.send("POST", `${rbac}/roles?fieldValidation=Strict`, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: "cairn-image-builds" },
      rules: [
        { apiGroups: ["batch"], resources: ["jobs"], verbs: ["create", "get", "delete"] },
        // create: the dry run that asks Pod Security about the build pod before the Job is made
        { apiGroups: [""], resources: ["pods"], verbs: ["create", "list"] },
        { apiGroups: [""], resources: ["pods/log"], verbs: ["get"] },
      ],
    });
    await admin.send("POST", `${rbac}/rolebindings?fieldValidation=Strict`, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: "cairn-image-builds" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "cairn-image-builds" },
      subjects: [{ kind: "ServiceAccount", name: "cairn-server", namespace: "cairn" }],
    });
    // The Job's pod runs as the namespace's default service account, which a controller makes.
    await eventually(async () =>
      (await admin.request("GET", `/api/v1/namespaces/${buildNamespace}/serviceaccounts/default`)).status ===
      200
        ? true
        : undefined,
    );
    test = await buildingPlatform(cluster, buildNamespace);
    client = await createSandboxClient(test);
  });
  afterAll(() => test?.close());

  it("runs the build Job's pod to completion, reads the Job, and deletes it with its pod", async () => {
    const { admin } = useCluster();
    const created = await client.sendJson<{ id: string; status: string }>("/v1/images", {
      method: "POST",
      json: { label: "tools", python_packages: ["six==1.16.0"] },
    });
    expect([created.status, created.body.status]).toEqual([202, "queued"]);
    const jobName = imageJobName(created.body.id);
    // The Job's pod, as the Job controller made it and the scheduler placed it.
    const pods = `/api/v1/namespaces/${buildNamespace}/pods?labelSelector=job-name%3D${jobName}`;
    const pod = await eventually(async () => {
      const [found] = ((await admin.send("GET", pods)) as { items: V1Pod[] }).items;
      return found?.spec?.nodeName ? found : undefined;
    });
    expect(pod.spec?.nodeName).toBe("kwok-node-0");
    expect(pod.spec?.containers.map((container) => container.name)).toEqual(["build"]);

    const image = await settled(client, created.body.id);
    // "Finished": the Job controller saw its pod succeed. Without a real kaniko there is no digest.
    expect(image).toMatchObject({
      status: "failed",
      failure_reason: "The build Job finished without reporting an image digest",
      registry_ref: null,
    });
    await eventually(async () =>
      (await admin.request("GET", `/apis/batch/v1/namespaces/${buildNamespace}/jobs/${jobName}`)).status ===
      404
        ? true
        : undefined,
    );
    // Deleted in the background: the garbage collector removes the Job's pod after it.
    await eventually(async () =>
      ((await admin.send("GET", pods)) as { items: V1Pod[] }).items.length === 0 ? true : undefined,
    );
  });
  it("fails at once, naming Pod Security, a build in a namespace that refuses its pod, and makes no Job", async () => {
    const cluster = useCluster();
    // SVC_KUBE_BUILD_NAMESPACE unset: builds run in the sandbox namespace, `restricted`.
    const restricted = await buildingPlatform(cluster);
    try {
      const other = await createSandboxClient(restricted);
      const created = await other.sendJson<{ id: string }>("/v1/images", {
        method: "POST",
        json: { label: "tools", python_packages: ["six==1.16.0"] },
      });
      expect(created.status).toBe(202);
      expect(await settled(other, created.body.id)).toMatchObject({
        status: "failed",
        failure_reason: expect.stringMatching(
          /^The namespace cairn-sandboxes refuses the build pod \(violates PodSecurity "restricted:latest": .+\); an operator must set SVC_KUBE_BUILD_NAMESPACE to a namespace whose Pod Security admits it$/,
        ),
      });
      const job = `/apis/batch/v1/namespaces/${cluster.sandboxNamespace}/jobs/${imageJobName(created.body.id)}`;
      expect((await cluster.admin.request("GET", job)).status).toBe(404);
    } finally {
      await restricted.close();
    }
  });
});
