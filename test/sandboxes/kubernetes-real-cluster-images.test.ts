/**
 * An image build's Job on the real control plane (test/support/kubernetes-cluster.ts), through the
 * REST API as Cairn's own service account, in a build namespace an operator set up as
 * deploy/kubernetes/30-config.yaml says builds need (one that admits kaniko's root pod, and the
 * grant for jobs and pods/log): the Job is created, kube-controller-manager's Job controller makes
 * its pod, the scheduler places it, the fake node ends it as kaniko would (a kwok stage,
 * scripts/kubernetes-test-cluster/kwok-stages/kaniko.yaml: the pushed image's digest in the
 * termination message, or a failure), Cairn reads the Job, the digest and the pod's log through
 * the API server, deletes the Job with its pod, and starts sandbox pods from the pushed image. In
 * a namespace whose Pod Security refuses the build pod (the sandbox namespace, `restricted`, where
 * builds run when SVC_KUBE_BUILD_NAMESPACE is unset), the build fails at once with the refusal,
 * before any Job, instead of waiting out the Job's deadline. The builder is the plugin's, made
 * from the settings.
 */
import { createHash } from "node:crypto";
import type { V1Job, V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { imageDockerfile, imageJobName } from "../../plugins/sandbox-kubernetes/image-build-job.ts";
import { defaultBaseImages } from "../../plugins/sandbox-kubernetes/image-builder.ts";
import { objectName } from "../../plugins/sandbox-kubernetes/manifests.ts";
import { eventually } from "../support/eventually.ts";
import type { KubernetesTestCluster } from "../support/kubernetes-cluster.ts";
import {
  createCairnRuntime,
  podPath,
  useKubernetesTestCluster,
} from "../support/kubernetes-cluster-cairn.ts";
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

  /** Waits until the build's Job is gone, and the garbage collector has removed its pod after it. */
  const expectJobGone = async (imageId: string) => {
    const { admin } = useCluster();
    const jobName = imageJobName(imageId);
    await eventually(async () =>
      (await admin.request("GET", `/apis/batch/v1/namespaces/${buildNamespace}/jobs/${jobName}`)).status ===
      404
        ? true
        : undefined,
    );
    const pods = `/api/v1/namespaces/${buildNamespace}/pods?labelSelector=job-name%3D${jobName}`;
    await eventually(async () =>
      ((await admin.send("GET", pods)) as { items: V1Pod[] }).items.length === 0 ? true : undefined,
    );
  };
  const nodeLog = (pod: string) =>
    `the test node ran no container: no log for ${buildNamespace}/${pod} build\n`;

  it("runs the build Job's pod to completion, reads the digest and log, deletes the Job, and starts sandboxes from the image", async () => {
    const cluster = useCluster();
    // The Jobs as the API server stores them (Cairn deletes its Job once it has read the outcome).
    const jobs: V1Job[] = [];
    const stopWatching = cluster.admin.watch(
      `/apis/batch/v1/namespaces/${buildNamespace}/jobs`,
      (type, job) => {
        if (type === "ADDED") jobs.push(job as V1Job);
      },
    );
    const created = await client.sendJson<{ id: string; status: string }>("/v1/images", {
      method: "POST",
      json: { label: "tools", python_packages: ["six==1.16.0"] },
    });
    expect([created.status, created.body.status]).toEqual([202, "queued"]);
    const jobName = imageJobName(created.body.id);
    const job = await eventually(async () => jobs.find((entry) => entry.metadata?.name === jobName));
    stopWatching();
    const specHash = (await test.platform.storage.images.get(client.accountId, created.body.id))?.specHash;
    const labels = {
      "app.kubernetes.io/managed-by": "cairn",
      "cairn.dev/image-id": created.body.id,
      "cairn.dev/account-id": client.accountId,
    };
    expect(job).toMatchObject({
      metadata: { name: jobName, namespace: buildNamespace, labels },
      spec: {
        backoffLimit: 0,
        activeDeadlineSeconds: 900,
        ttlSecondsAfterFinished: 3600,
        template: {
          metadata: { labels },
          spec: {
            restartPolicy: "Never",
            automountServiceAccountToken: false,
            enableServiceLinks: false,
            initContainers: [
              {
                name: "dockerfile",
                image: "docker.io/library/node:22-bookworm",
                command: ["/bin/sh", "-c", 'printf "%s" "$DOCKERFILE" > /workspace/Dockerfile'],
                volumeMounts: [{ name: "workspace", mountPath: "/workspace" }],
              },
            ],
            containers: [
              {
                name: "build",
                image: "gcr.io/kaniko-project/executor:v1.23.2",
                args: [
                  "--context=dir:///workspace",
                  "--dockerfile=/workspace/Dockerfile",
                  `--destination=registry.test/cairn/images:${specHash}`,
                  "--digest-file=/dev/termination-log",
                  "--reproducible",
                ],
                terminationMessagePolicy: "File",
                volumeMounts: [
                  { name: "workspace", mountPath: "/workspace" },
                  { name: "registry-credentials", mountPath: "/kaniko/.docker", readOnly: true },
                ],
              },
            ],
            volumes: [
              { name: "workspace", emptyDir: {} },
              {
                name: "registry-credentials",
                secret: {
                  secretName: "cairn-image-registry",
                  optional: true,
                  items: [{ key: ".dockerconfigjson", path: "config.json" }],
                },
              },
            ],
          },
        },
      },
    });
    // The Job's pod, as the Job controller made it and the scheduler placed it.
    const pods = `/api/v1/namespaces/${buildNamespace}/pods?labelSelector=job-name%3D${jobName}`;
    const pod = await eventually(async () => {
      const [found] = ((await cluster.admin.send("GET", pods)) as { items: V1Pod[] }).items;
      return found?.spec?.nodeName ? found : undefined;
    });
    expect(pod.spec?.nodeName).toBe("kwok-node-0");
    expect(pod.spec?.containers.map((container) => container.name)).toEqual(["build"]);

    // The node's kaniko pushed the image its Dockerfile describes, reported by digest.
    const dockerfile = imageDockerfile(
      {
        id: "",
        accountId: "",
        specHash: "",
        base: "default",
        pythonPackages: ["six==1.16.0"],
        aptPackages: [],
        npmPackages: [],
      },
      defaultBaseImages.default ?? "",
    );
    expect(pod.spec?.initContainers?.[0]?.env?.[0]?.value).toBe(dockerfile);
    const digest = `sha256:${createHash("sha256").update(dockerfile).digest("hex")}`;
    const image = await settled(client, created.body.id);
    expect(image).toMatchObject({
      status: "completed",
      digest,
      registry_ref: `registry.test/cairn/images@${digest}`,
      build_log_tail: nodeLog(pod.metadata?.name ?? ""),
      failure_reason: null,
    });
    await expectJobGone(created.body.id);

    // A sandbox from the image runs the pushed image in its pod.
    const session = await client.createActive({ image_id: created.body.id });
    const sandboxPod = (await cluster.admin.send("GET", podPath(cluster, objectName(session.id)))) as V1Pod;
    expect([sandboxPod.spec?.containers[0]?.image, sandboxPod.status?.phase]).toEqual([
      `registry.test/cairn/images@${digest}`,
      "Running",
    ]);
    expect((await client.destroy(session.id)).status).toBe(204);
  });

  it("reports a build its Job failed, with the pod's log, and deletes the Job all the same", async () => {
    const created = await client.sendJson<{ id: string }>("/v1/images", {
      method: "POST",
      json: { base: "minimal", apt_packages: ["cairn-test-build-fails==1.0"] },
    });
    expect(created.status).toBe(202);
    const image = await settled(client, created.body.id);
    expect(image).toMatchObject({
      status: "failed",
      digest: null,
      registry_ref: null,
      failure_reason: "The build Job failed; see build_log_tail",
      build_log_tail: expect.stringMatching(
        /^the test node ran no container: no log for cairn-builds\/.+ build\n$/,
      ),
    });
    await expectJobGone(created.body.id);
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
