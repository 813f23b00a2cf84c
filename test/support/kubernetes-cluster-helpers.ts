/**
 * Helpers of the test Kubernetes cluster's start (kubernetes-cluster.ts): the build, free ports,
 * kubeconfig files, leftover run folders and the URL an applied object is created at.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";

export const repository = resolve(import.meta.dirname, "../..");
export const clusterModule = join(repository, "scripts/kubernetes-test-cluster");

/** Builds (or finds cached) the binaries; returns the folder holding the programs. */
export function buildKubernetesTestCluster(): string {
  const output = execFileSync("bash", [join(clusterModule, "build.sh")], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    timeout: 60 * 60 * 1000,
  });
  return output.trim().split("\n").at(-1) ?? "";
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export function kubeConfig(server: string, caCertificate: string, user: Record<string, string>): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "test", cluster: { server, "certificate-authority": caCertificate } }],
    users: [{ name: "user", user }],
    contexts: [{ name: "test", context: { cluster: "test", user: "user" } }],
    "current-context": "test",
  });
}

/** Removes the run folders of test processes that died without stopping their cluster. */
export function removeAbandonedRuns(folder: string): void {
  for (const entry of readdirSync(folder)) {
    const pid = Number(/^run-(\d+)-\d+$/.exec(entry)?.[1]);
    if (!pid) continue;
    try {
      process.kill(pid, 0);
    } catch {
      rmSync(join(folder, entry), { recursive: true, force: true });
    }
  }
}

/** The collection URL an object is created in (the kinds deploy/kubernetes uses). */
export function collectionPath(object: {
  apiVersion: string;
  kind: string;
  metadata?: { namespace?: string };
}): string {
  const plural: Record<string, string> = {
    Namespace: "namespaces",
    NetworkPolicy: "networkpolicies",
    ServiceAccount: "serviceaccounts",
    Role: "roles",
    RoleBinding: "rolebindings",
    ConfigMap: "configmaps",
    Deployment: "deployments",
    Service: "services",
    PodDisruptionBudget: "poddisruptionbudgets",
  };
  const resource = plural[object.kind];
  if (!resource) throw new Error(`the test cluster cannot apply a ${object.kind} yet`);
  const group = object.apiVersion === "v1" ? "/api/v1" : `/apis/${object.apiVersion}`;
  const namespace = object.metadata?.namespace;
  return namespace ? `${group}/namespaces/${namespace}/${resource}` : `${group}/${resource}`;
}
