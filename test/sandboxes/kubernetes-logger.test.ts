/**
 * The Kubernetes runtime's warnings reach the platform logger: a platform configured with
 * SVC_SANDBOX_RUNTIME=kubernetes (its kubeconfig from KUBECONFIG, msw playing the API server)
 * reconciles its sandboxes, meets a pod whose mount-paths annotation is not JSON, and the warning
 * arrives on the logger given to createPlatform, fields first and message second, as pino takes them.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpResponse, http } from "msw";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Logger } from "../../core/ports/logger.ts";
import { reconcileSandboxes } from "../../core/sandboxes/sessions/lifecycle.ts";
import { apiServer, bearerToken, createFakeKubernetesCluster } from "../doubles/fake-kubernetes-cluster.ts";
import { createTestPlatform } from "../support/platforms.ts";

const namespace = "cairn-sandboxes";
const sandboxId = "0d6f3c2b-1a2b-4c3d-8e9f-0a1b2c3d4e5f";

function recordingLogger(warnings: Array<{ fields: object; message?: string }>): Logger {
  const logger: Logger = {
    debug() {},
    info() {},
    warn: (fields, message) => warnings.push({ fields, message }),
    error() {},
    child: () => logger,
  };
  return logger;
}

const cluster = createFakeKubernetesCluster();
let kubeDirectory: string;
const previousKubeconfig = process.env.KUBECONFIG;
beforeAll(async () => {
  cluster.network.enable();
  kubeDirectory = await mkdtemp(join(tmpdir(), "cairn-kubeconfig-"));
  const kubeconfig = join(kubeDirectory, "config");
  await writeFile(
    kubeconfig,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "test", cluster: { server: apiServer, "insecure-skip-tls-verify": true } }],
      users: [{ name: "cairn", user: { token: bearerToken } }],
      contexts: [{ name: "test", context: { cluster: "test", user: "cairn" } }],
      "current-context": "test",
    }),
  );
  process.env.KUBECONFIG = kubeconfig;
});
afterAll(async () => {
  cluster.network.disable();
  if (previousKubeconfig === undefined) delete process.env.KUBECONFIG;
  else process.env.KUBECONFIG = previousKubeconfig;
  await rm(kubeDirectory, { recursive: true, force: true });
});

describe("Kubernetes runtime logging", () => {
  it("a pod with an unreadable annotation is a warning on the platform logger", async () => {
    cluster.network.use(
      http.get(`${apiServer}/api/v1/namespaces/${namespace}/pods`, () =>
        HttpResponse.json({
          kind: "PodList",
          apiVersion: "v1",
          metadata: {},
          items: [
            {
              metadata: {
                name: `cairn-sandbox-${sandboxId}`,
                labels: { "app.kubernetes.io/managed-by": "cairn", "cairn.dev/session-id": sandboxId },
                annotations: { "cairn.dev/mount-paths": "not json" },
              },
            },
          ],
        }),
      ),
      // Reconciliation removes the pod no session owns.
      http.delete(/.*/, () => HttpResponse.json({ kind: "Status", status: "Success" })),
    );
    const warnings: Array<{ fields: object; message?: string }> = [];
    const test = await createTestPlatform("sqlite", {
      environment: { SVC_SANDBOX_RUNTIME: "kubernetes", SVC_KUBE_NAMESPACE: namespace },
      logger: recordingLogger(warnings),
    });
    try {
      expect(test.platform.sandboxRuntime.name).toBe("kubernetes");
      await reconcileSandboxes(test.platform);
      expect(warnings).toContainEqual({
        fields: { sandboxId },
        message: "sandbox pod has an unreadable mount-paths annotation",
      });
    } finally {
      await test.close();
    }
  });
});
