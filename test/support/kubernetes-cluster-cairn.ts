/**
 * Cairn on the test Kubernetes cluster (kubernetes-cluster.ts), for the suites that run on it: a
 * cluster per test file, Cairn's runtime as its own service account (deploy/kubernetes's RBAC),
 * and what the API server holds of Cairn's sandboxes, read as admin.
 */
import { KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll } from "vitest";
import {
  createKubernetesSandboxRuntime,
  type KubernetesSandboxRuntimeSettings,
} from "../../plugins/sandbox-kubernetes/runtime.ts";
import { eventually } from "./eventually.ts";
import { type KubernetesTestCluster, startKubernetesTestCluster } from "./kubernetes-cluster.ts";

/** The cluster of this test file: started before its tests (a cold build takes minutes), stopped after. */
export function useKubernetesTestCluster(): () => KubernetesTestCluster {
  let cluster: KubernetesTestCluster | undefined;
  beforeAll(async () => {
    cluster = await startKubernetesTestCluster();
  }, 30 * 60_000);
  afterAll(() => cluster?.stop(), 60_000);
  return () => {
    if (!cluster) throw new Error("the Kubernetes test cluster has not started");
    return cluster;
  };
}

/** A kubeconfig of Cairn's service account cairn/cairn-server (a TokenRequest token). */
export function cairnKubeConfig(cluster: KubernetesTestCluster): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(cluster.cairnKubeConfigPath);
  return kubeConfig;
}

/** Cairn's runtime on the cluster as its own service account, polling pods every 100 ms. */
export function createCairnRuntime(
  cluster: KubernetesTestCluster,
  settings: Partial<KubernetesSandboxRuntimeSettings> = {},
) {
  return createKubernetesSandboxRuntime({
    namespace: cluster.sandboxNamespace,
    kubeConfig: cairnKubeConfig(cluster),
    pollIntervalMs: 100,
    startTimeoutMs: 60_000,
    ...settings,
  });
}

export const podPath = (cluster: KubernetesTestCluster, name: string) =>
  `/api/v1/namespaces/${cluster.sandboxNamespace}/pods/${name}`;
export const policyPath = (cluster: KubernetesTestCluster, name: string) =>
  `/apis/networking.k8s.io/v1/namespaces/${cluster.sandboxNamespace}/networkpolicies/${name}`;

/**
 * The names of Cairn's pods and NetworkPolicies in the sandbox namespace (not the namespace's
 * default-deny policy), sorted; pods being deleted count until the API server drops them.
 */
export async function cairnObjects(cluster: KubernetesTestCluster) {
  const selector = "labelSelector=app.kubernetes.io%2Fmanaged-by%3Dcairn";
  const names = async (path: string) =>
    (
      (await cluster.admin.send("GET", `${path}?${selector}`)) as {
        items: Array<{ metadata: { name: string } }>;
      }
    ).items
      .map((item) => item.metadata.name)
      .sort();
  return {
    pods: await names(`/api/v1/namespaces/${cluster.sandboxNamespace}/pods`),
    policies: await names(
      `/apis/networking.k8s.io/v1/namespaces/${cluster.sandboxNamespace}/networkpolicies`,
    ),
  };
}

/** Waits until the API server holds exactly these pods and policies of Cairn's (sorted names). */
export async function expectCairnObjects(cluster: KubernetesTestCluster, names: string[]) {
  const expected = JSON.stringify({ pods: [...names].sort(), policies: [...names].sort() });
  let last = "";
  await eventually(async () => {
    last = JSON.stringify(await cairnObjects(cluster));
    return last === expected ? true : undefined;
  }).catch(() => {
    throw new Error(`the cluster holds ${last}, expected ${expected}`);
  });
}

interface Role {
  rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
}

/** The API group of the resources 20-rbac.yaml grants outside the core group. */
const apiGroups: Record<string, string> = {
  networkpolicies: "networking.k8s.io",
  volumesnapshots: "snapshot.storage.k8s.io",
};

/** Whether the API server's authorizer lets Cairn's service account do this now (a SubjectAccessReview). */
async function cairnMay(cluster: KubernetesTestCluster, verb: string, resource: string): Promise<boolean> {
  const [plural, subresource] = resource.split("/");
  const review = (await cluster.admin.send("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    spec: {
      user: "system:serviceaccount:cairn:cairn-server",
      resourceAttributes: {
        namespace: cluster.sandboxNamespace,
        verb,
        group: apiGroups[plural] ?? "",
        resource: plural,
        ...(subresource && { subresource }),
      },
    },
  })) as { status: { allowed: boolean } };
  return review.status.allowed;
}

/**
 * Takes `verbs` on `resource` (as 20-rbac.yaml names it: pods, pods/exec, networkpolicies, …) away
 * from Cairn's Role, as an operator's incomplete RBAC would, and waits until the authorizer
 * refuses them. Returns the restore, which waits until they are allowed again.
 */
export async function withholdFromCairn(cluster: KubernetesTestCluster, resource: string, verbs: string[]) {
  const path = `/apis/rbac.authorization.k8s.io/v1/namespaces/${cluster.sandboxNamespace}/roles/cairn-sandbox-runtime`;
  const role = (await cluster.admin.send("GET", path)) as Role;
  const original = role.rules;
  role.rules = original
    .map((rule) =>
      rule.resources.includes(resource)
        ? { ...rule, verbs: rule.verbs.filter((verb) => !verbs.includes(verb)) }
        : rule,
    )
    .filter((rule) => rule.verbs.length > 0);
  await cluster.admin.send("PUT", path, role);
  const settled = (allowed: boolean) =>
    eventually(async () => {
      for (const verb of verbs) if ((await cairnMay(cluster, verb, resource)) !== allowed) return undefined;
      return true;
    });
  await settled(false);
  return async () => {
    const current = (await cluster.admin.send("GET", path)) as Role;
    await cluster.admin.send("PUT", path, { ...current, rules: original });
    await settled(true);
  };
}
