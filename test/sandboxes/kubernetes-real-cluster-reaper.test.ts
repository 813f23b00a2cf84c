/**
 * Sessions ended without a request, on a real Kubernetes control plane
 * (test/support/kubernetes-cluster.ts), Cairn as its own service account: the background reaper
 * (core/sandboxes/sessions/lifecycle.ts, every second here) deletes an expired sandbox's pod and
 * NetworkPolicy from the API server and ends its session at its expiry, also when someone deleted
 * the pod first; start-up reconciliation deletes a pod and policy no session owns, and a server
 * configured from the environment hears the runtime's warning about a pod it cannot read. The
 * platform's clock is injected; the cluster's is real, so each outcome is awaited as a condition.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reconcileSandboxes, startSandboxReaper } from "../../core/index.ts";
import type { Logger } from "../../core/ports/logger.ts";
import { objectName } from "../../plugins/sandbox-kubernetes/manifests.ts";
import { createFakeClock } from "../doubles/fake-clock.ts";
import { eventually } from "../support/eventually.ts";
import {
  createCairnRuntime,
  expectCairnObjects,
  podPath,
  useKubernetesTestCluster,
} from "../support/kubernetes-cluster-cairn.ts";
import type { TestPlatform } from "../support/platforms.ts";
import { createSandboxClient, createSandboxPlatform, type SandboxClient } from "./sandbox-client.ts";

const minute = 60_000;
const cluster = useKubernetesTestCluster();

describe("the reaper on a real Kubernetes control plane", () => {
  const clock = createFakeClock(new Date("2026-05-20T09:00:00Z"));
  let test: TestPlatform;
  let client: SandboxClient;
  let stopReaper: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite", {
      clock,
      sandboxRuntime: createCairnRuntime(cluster()),
      environment: { SVC_SESSION_REAPER_INTERVAL_SECONDS: "1" },
    });
    client = await createSandboxClient(test);
    stopReaper = startSandboxReaper(test.platform);
  });
  afterAll(async () => {
    await stopReaper?.();
    await test?.close();
  });

  /** Waits until the reaper has ended the session, and returns it. */
  const reaped = (id: string) =>
    eventually(async () => {
      const session = (await client.get(id)).body;
      return session.status === "destroyed" ? session : undefined;
    });

  it("deletes an expired sandbox's pod and policy, ends it at its expiry, and leaves the others running", async () => {
    const short = await client.createActive({ lifetime_minutes: 5 });
    const long = await client.createActive();
    await expectCairnObjects(cluster(), [objectName(short.id), objectName(long.id)]);
    expect((await client.exec(short.id, "echo alive")).body.stdout).toBe("alive\n");

    clock.advance(7 * minute);
    expect(await reaped(short.id)).toMatchObject({
      ended_reason: "expired",
      destroyed_at: short.expires_at,
      connect: null,
    });
    await expectCairnObjects(cluster(), [objectName(long.id)]);
    expect((await client.exec(long.id, "echo still here")).body.stdout).toBe("still here\n");

    // Someone deletes the pod behind Cairn's back: the reaper still ends the session, and the
    // pod's policy does not outlive it.
    await cluster().admin.send("DELETE", `${podPath(cluster(), objectName(long.id))}?gracePeriodSeconds=0`);
    clock.advance(30 * minute);
    expect(await reaped(long.id)).toMatchObject({ ended_reason: "expired", destroyed_at: long.expires_at });
    await expectCairnObjects(cluster(), []);
    expect((await client.usage()).body.concurrent_sandboxes).toBe(0);
  });

  it("deletes at start-up a pod and policy that no session owns, and keeps the live ones", async () => {
    const live = await client.createActive();
    const orphan = crypto.randomUUID();
    await test.platform.sandboxRuntime.create({
      id: orphan,
      accountId: client.accountId,
      size: "small",
      storageGb: null,
      egressHosts: [],
      volumeMounts: [],
    });
    await expectCairnObjects(cluster(), [objectName(live.id), objectName(orphan)]);

    expect(await reconcileSandboxes(test.platform)).toEqual({ adopted: 1, removed: 1, ended: 0 });
    await expectCairnObjects(cluster(), [objectName(live.id)]);
    expect((await client.exec(live.id, "echo adopted")).body.stdout).toBe("adopted\n");
    expect((await client.destroy(live.id)).status).toBe(204);
    await expectCairnObjects(cluster(), []);
  });
});

describe("the Kubernetes runtime's warnings on a real control plane", () => {
  it("reach the logger of a server configured from the environment: a pod with an unreadable annotation, removed as an orphan", async () => {
    const warnings: Array<{ fields: object; message?: string }> = [];
    const logger: Logger = {
      debug() {},
      info() {},
      warn: (fields, message) => warnings.push({ fields, message }),
      error() {},
      child: () => logger,
    };
    const previousKubeconfig = process.env.KUBECONFIG;
    process.env.KUBECONFIG = cluster().cairnKubeConfigPath;
    const test = await createSandboxPlatform("sqlite", {
      environment: { SVC_SANDBOX_RUNTIME: "kubernetes", SVC_KUBE_NAMESPACE: cluster().sandboxNamespace },
      logger,
    });
    try {
      expect(test.platform.sandboxRuntime.name).toBe("kubernetes");
      // A pod of Cairn's that no session owns, its mount-paths annotation garbled.
      const orphan = crypto.randomUUID();
      await test.platform.sandboxRuntime.create({
        id: orphan,
        accountId: "account-1",
        size: "small",
        storageGb: null,
        egressHosts: [],
        volumeMounts: [],
      });
      const path = podPath(cluster(), objectName(orphan));
      const pod = (await cluster().admin.send("GET", path)) as V1Pod;
      pod.metadata = {
        ...pod.metadata,
        annotations: { ...pod.metadata?.annotations, "cairn.dev/mount-paths": "not json" },
      };
      await cluster().admin.send("PUT", path, pod);

      expect(await reconcileSandboxes(test.platform)).toMatchObject({ removed: 1 });
      expect(warnings).toContainEqual({
        fields: { sandboxId: orphan },
        message: "sandbox pod has an unreadable mount-paths annotation",
      });
      await expectCairnObjects(cluster(), []);
    } finally {
      await test.close();
      if (previousKubeconfig === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = previousKubeconfig;
    }
  });
});
