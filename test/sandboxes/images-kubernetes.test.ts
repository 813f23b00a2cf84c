/**
 * Custom images on the Kubernetes runtime through the REST API, on both databases, with msw
 * playing the API server (test/doubles/fake-kubernetes-cluster.ts): the dry run of the build pod,
 * the exact build Job an image creates, the polling of it, the pod's digest and log read after it, the Job deleted with
 * its pods, the pushed reference as registry_ref and as the pod image of a sandbox started from
 * it; and a failed Job reported with its log and cleaned up the same way.
 */
import { HttpResponse, http } from "msw";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createKubernetesImageBuilder } from "../../plugins/sandbox-kubernetes/image-builder.ts";
import { createKubernetesSandboxRuntime } from "../../plugins/sandbox-kubernetes/runtime.ts";
import {
  apiServer,
  createFakeKubernetesCluster,
  testKubeConfig,
} from "../doubles/fake-kubernetes-cluster.ts";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import { createSandboxClient, createSandboxPlatform, type SandboxClient } from "./sandbox-client.ts";

const namespace = "cairn-sandboxes";
const base = `/api/v1/namespaces/${namespace}`;
const jobsPath = `/apis/batch/v1/namespaces/${namespace}/jobs`;
const policiesPath = `/apis/networking.k8s.io/v1/namespaces/${namespace}/networkpolicies`;
const repository = "registry.test/cairn/images";
const builderImage = "gcr.io/kaniko-project/executor:v1.23.2";
const pushedDigest = `sha256:${"ab".repeat(32)}`;

const cluster = createFakeKubernetesCluster();
beforeAll(() => cluster.network.enable());
afterEach(async () => {
  cluster.network.resetHandlers();
  await cluster.takeRequests();
});
afterAll(() => cluster.network.disable());

const echo = async ({ request }: { request: Request }) =>
  HttpResponse.json(await request.json(), { status: 201 });

/** A cluster whose build Job runs for one poll and then ends `outcome`, its pod reporting the digest. */
function buildJobCluster(outcome: "succeeded" | "failed", log: string) {
  let reads = 0;
  cluster.network.use(
    // The dry run of the build pod: the namespace's Pod Security admits it.
    http.post(`${apiServer}${base}/pods`, echo),
    http.post(`${apiServer}${jobsPath}`, echo),
    http.get(`${apiServer}${jobsPath}/:name`, ({ params }) => {
      reads += 1;
      const status = reads < 2 ? { active: 1 } : outcome === "succeeded" ? { succeeded: 1 } : { failed: 1 };
      return HttpResponse.json({ metadata: { name: params.name, namespace }, status });
    }),
    http.get(`${apiServer}${base}/pods`, ({ request }) => {
      const selector = new URL(request.url).searchParams.get("labelSelector") ?? "";
      const jobName = selector.replace("job-name=", "");
      return HttpResponse.json({
        apiVersion: "v1",
        kind: "PodList",
        metadata: {},
        items: [
          {
            metadata: { name: `${jobName}-x7k2p`, namespace },
            status: {
              phase: outcome === "succeeded" ? "Succeeded" : "Failed",
              containerStatuses: [
                {
                  name: "build",
                  ready: false,
                  restartCount: 0,
                  image: builderImage,
                  imageID: "",
                  state: {
                    terminated: {
                      exitCode: outcome === "succeeded" ? 0 : 1,
                      message: outcome === "succeeded" ? `${pushedDigest}\n` : "",
                    },
                  },
                },
              ],
            },
          },
        ],
      });
    }),
    http.get(`${apiServer}${base}/pods/:name/log`, () => HttpResponse.text(log)),
    http.delete(`${apiServer}${jobsPath}/:name`, () =>
      HttpResponse.json({ kind: "Status", status: "Success" }),
    ),
  );
}

async function settled(client: SandboxClient, id: string) {
  for (;;) {
    const image = await client.sendJson<Record<string, unknown>>(`/v1/images/${id}`);
    if (image.body.status === "completed" || image.body.status === "failed") return image.body;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe.each(storageTargets)("images on the Kubernetes runtime, on %s", (target) => {
  let test: TestPlatform;
  let client: SandboxClient;

  beforeAll(async () => {
    test = await createSandboxPlatform(target, {
      environment: { SVC_IMAGE_BUILD_RATE_LIMIT_PER_MINUTE: "100000" },
      sandboxRuntime: createKubernetesSandboxRuntime({
        namespace,
        kubeConfig: testKubeConfig(),
        image: "registry.test/cairn/sandbox:1",
        pollIntervalMs: 1,
      }),
      imageBuilder: createKubernetesImageBuilder({
        namespace,
        kubeConfig: testKubeConfig(),
        repository,
        builderImage,
        timeoutSeconds: 900,
        pollIntervalMs: 1,
      }),
    });
    client = await createSandboxClient(test);
  });
  afterAll(() => test.close());

  it("creates the exact build Job, polls it, reads the digest and log from its pod, deletes it, and starts sandboxes from the pushed image", async () => {
    buildJobCluster("succeeded", "INFO Pushed registry.test/cairn/images\n");
    const created = await client.sendJson<{ id: string }>("/v1/images", {
      method: "POST",
      json: {
        label: "tools",
        npm_packages: ["is-number==7.0.0"],
        python_packages: ["six==1.16.0"],
        apt_packages: ["jq==1.6-2.1+deb12u1"],
      },
    });
    expect(created.status).toBe(202);
    const id = created.body.id;
    const image = await settled(client, id);
    expect(image).toMatchObject({
      status: "completed",
      digest: pushedDigest,
      registry_ref: `${repository}@${pushedDigest}`,
      build_log_tail: "INFO Pushed registry.test/cairn/images\n",
      failure_reason: null,
    });
    const jobName = `cairn-image-build-${id}`;
    const requests = await cluster.takeRequests();
    expect(requests.map((request) => [request.method, request.path, request.query])).toEqual([
      ["POST", `${base}/pods`, { dryRun: "All" }],
      ["POST", jobsPath, {}],
      ["GET", `${jobsPath}/${jobName}`, {}],
      ["GET", `${jobsPath}/${jobName}`, {}],
      ["GET", `${base}/pods`, { labelSelector: `job-name=${jobName}` }],
      ["GET", `${base}/pods/${jobName}-x7k2p/log`, { container: "build", limitBytes: "4096" }],
      ["DELETE", `${jobsPath}/${jobName}`, { propagationPolicy: "Background" }],
    ]);
    const specHash = (await test.platform.storage.images.get(client.accountId, id))?.specHash ?? "";
    const labels = {
      "app.kubernetes.io/managed-by": "cairn",
      "cairn.dev/image-id": id,
      "cairn.dev/account-id": client.accountId,
    };
    expect(requests[1].body).toEqual({
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: jobName, namespace, labels },
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
                env: [
                  {
                    name: "DOCKERFILE",
                    value: [
                      "FROM docker.io/library/node:22-bookworm",
                      "USER root",
                      "RUN apt-get update && apt-get install -y --no-install-recommends jq=1.6-2.1+deb12u1 && rm -rf /var/lib/apt/lists/*",
                      "RUN python3 -m pip --version >/dev/null 2>&1 || (apt-get update && apt-get install -y --no-install-recommends python3-pip && rm -rf /var/lib/apt/lists/*)",
                      "RUN python3 -m pip install --no-cache-dir --break-system-packages --target /opt/cairn/image/python six==1.16.0",
                      "ENV PYTHONPATH=/opt/cairn/image/python",
                      "RUN npm install --prefix /opt/cairn/image/npm --no-audit --no-fund is-number@7.0.0",
                      "ENV NODE_PATH=/opt/cairn/image/npm/node_modules",
                      "",
                    ].join("\n"),
                  },
                ],
                volumeMounts: [{ name: "workspace", mountPath: "/workspace" }],
              },
            ],
            containers: [
              {
                name: "build",
                image: builderImage,
                args: [
                  "--context=dir:///workspace",
                  "--dockerfile=/workspace/Dockerfile",
                  `--destination=${repository}:${specHash}`,
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

    cluster.network.use(
      http.post(`${apiServer}${policiesPath}`, echo),
      http.post(`${apiServer}${base}/pods`, echo),
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
    const session = await client.createActive({ image_id: id });
    const [, pod] = await cluster.takeRequests();
    expect(pod.path).toBe(`${base}/pods`);
    expect(
      (pod.body as { metadata: { name: string }; spec: { containers: Array<{ image: string }> } }).spec
        .containers[0].image,
    ).toBe(`${repository}@${pushedDigest}`);
    expect((pod.body as { metadata: { name: string } }).metadata.name).toBe(`cairn-sandbox-${session.id}`);
  });

  it("reports a failed Job with its log, and deletes the Job all the same", async () => {
    buildJobCluster("failed", "error building image: E: Version '9.9' for 'jq' was not found\n");
    const created = await client.sendJson<{ id: string }>("/v1/images", {
      method: "POST",
      json: { base: "minimal", apt_packages: ["jq==9.9"] },
    });
    const image = await settled(client, created.body.id);
    expect(image).toMatchObject({
      status: "failed",
      digest: null,
      registry_ref: null,
      failure_reason: "The build Job failed; see build_log_tail",
      build_log_tail: "error building image: E: Version '9.9' for 'jq' was not found\n",
    });
    const jobName = `cairn-image-build-${created.body.id}`;
    const requests = await cluster.takeRequests();
    expect(requests.at(-1)).toMatchObject({
      method: "DELETE",
      path: `${jobsPath}/${jobName}`,
      query: { propagationPolicy: "Background" },
    });
    const job = requests[1].body as {
      spec: {
        template: { spec: { initContainers: Array<{ image: string; env: Array<{ value: string }> }> } };
      };
    };
    expect(job.spec.template.spec.initContainers[0].image).toBe("docker.io/library/debian:bookworm-slim");
    expect(job.spec.template.spec.initContainers[0].env[0].value).toBe(
      "FROM docker.io/library/debian:bookworm-slim\nUSER root\nRUN apt-get update && apt-get install -y --no-install-recommends jq=9.9 && rm -rf /var/lib/apt/lists/*\n",
    );
  });
});
