/**
 * An operator's incomplete RBAC on a real Kubernetes control plane
 * (test/support/kubernetes-cluster.ts): with a grant of deploy/kubernetes/20-rbac.yaml taken away
 * from Cairn's service account, the call that needs it answers at once 409
 * `sandbox_runtime_misconfigured`, not retryable, naming the verb, resource and namespace, where it
 * answered a retryable 502 "Could not create the sandbox"; a create refused half-way leaves
 * nothing on the cluster; a destroy whose pod Cairn may not delete ends the session and leaves the
 * pod to the reaper, which removes it once the grant is back.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startSandboxReaper } from "../../core/index.ts";
import {
  cairnObjects,
  createCairnRuntime,
  expectCairnObjects,
  useKubernetesTestCluster,
  withholdFromCairn,
} from "../support/kubernetes-cluster-cairn.ts";
import type { TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  type ErrorBody,
  type SandboxClient,
} from "./sandbox-client.ts";

const cluster = useKubernetesTestCluster();

describe("Cairn's service account without a grant it needs", () => {
  let test: TestPlatform;
  let client: SandboxClient;
  let restore: (() => Promise<void>) | undefined;
  let stopReaper: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    // A create that waited for its pod would outlast the test: the refusal must come at once.
    test = await createSandboxPlatform("sqlite", {
      sandboxRuntime: createCairnRuntime(cluster(), { startTimeoutMs: 10 * 60_000 }),
      environment: { SVC_SESSION_REAPER_INTERVAL_SECONDS: "1" },
    });
    client = await createSandboxClient(test);
    stopReaper = startSandboxReaper(test.platform);
  });
  afterEach(async () => {
    await restore?.();
    restore = undefined;
  });
  afterAll(async () => {
    await stopReaper?.();
    await test?.close();
  });

  const misconfigured = (message: string, remediation: RegExp) => ({
    error: {
      code: "sandbox_runtime_misconfigured",
      retryable: false,
      message,
      remediation: expect.stringMatching(remediation),
    },
  });

  it("answers a create it may not make the policy for with the missing grant, and creates nothing", async () => {
    restore = await withholdFromCairn(cluster(), "networkpolicies", ["create"]);
    const refused = await client.create();
    expect([refused.status, refused.body]).toMatchObject([
      409,
      misconfigured(
        "The sandbox runtime's Kubernetes identity may not create networkpolicies.networking.k8s.io in namespace cairn-sandboxes",
        /verb create on networkpolicies\.networking\.k8s\.io/,
      ),
    ]);
    expect((await client.list()).body).toEqual([]);
    await expectCairnObjects(cluster(), []);
  });

  it("answers a create whose pod it may not read, after deleting the pod and policy it made", async () => {
    restore = await withholdFromCairn(cluster(), "pods", ["get"]);
    const refused = await client.create();
    expect([refused.status, refused.body]).toMatchObject([
      409,
      misconfigured(
        "The sandbox runtime's Kubernetes identity may not get pods in namespace cairn-sandboxes",
        /verb get on pods\)/,
      ),
    ]);
    await expectCairnObjects(cluster(), []);
    expect((await client.usage()).body.total_sandboxes_created).toBe(0);
  });

  it("answers a destroy it may not delete the pod for with the missing grant, and the reaper removes the pod once granted", async () => {
    const session = await client.createActive();
    const name = `cairn-sandbox-${session.id}`;
    restore = await withholdFromCairn(cluster(), "pods", ["delete"]);
    const refused = await client.sendJson(`/v1/sandboxes/${session.id}`, { method: "DELETE" });
    expect([refused.status, refused.body]).toMatchObject([
      409,
      misconfigured(
        "The sandbox runtime's Kubernetes identity may not delete pods in namespace cairn-sandboxes",
        /verb delete on pods\)/,
      ),
    ]);
    // Billing ended with the request; the pod stays while the grant is missing.
    expect((await client.get(session.id)).body).toMatchObject({ status: "destroyed" });
    expect((await cairnObjects(cluster())).pods).toEqual([name]);

    await restore();
    restore = undefined;
    // Nothing else would retry it before a restart: the reaper's next run removes it.
    await expectCairnObjects(cluster(), []);
  });

  it("answers an exec and a file read it may not open with the missing grant; the sandbox stays usable once granted", async () => {
    const session = await client.createActive();
    restore = await withholdFromCairn(cluster(), "pods/exec", ["create", "get"]);
    const exec = await client.exec(session.id, "echo hi");
    expect([exec.status, exec.body]).toMatchObject([
      409,
      misconfigured(
        "The sandbox runtime's Kubernetes identity may not exec in pods of namespace cairn-sandboxes",
        /verbs create and get on pods\/exec/,
      ),
    ]);
    const view = await client.sendJson(`/v1/sandboxes/${session.id}/files/view`, {
      method: "POST",
      json: { path: "a.txt" },
    });
    expect([view.status, (view.body as ErrorBody).error.code]).toEqual([
      409,
      "sandbox_runtime_misconfigured",
    ]);

    await restore();
    restore = undefined;
    expect((await client.exec(session.id, "echo hi")).body.stdout).toBe("hi\n");
    expect((await client.destroy(session.id)).status).toBe(204);
    await expectCairnObjects(cluster(), []);
  });
});
