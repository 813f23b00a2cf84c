/**
 * deploy/kubernetes/ checked without a cluster: every document validates against the Kubernetes
 * API schema of its kind (kubernetes-models), and the manifests agree with the code they deploy:
 * the probes hit real routes, every setting is one core/config.ts parses, the ports are the
 * server's, the Role grants exactly the API calls plugins/sandbox-kubernetes makes, and the
 * sandbox namespace is restricted and denies all traffic by default.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import * as apps from "kubernetes-models/apps/v1";
import * as networking from "kubernetes-models/networking.k8s.io/v1";
import * as policy from "kubernetes-models/policy/v1";
import * as rbac from "kubernetes-models/rbac.authorization.k8s.io/v1";
import * as core from "kubernetes-models/v1";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { loadConfig } from "../../core/index.ts";
import { buildContainerName, buildImageJob } from "../../plugins/sandbox-kubernetes/image-build-job.ts";
import {
  buildNetworkPolicy,
  buildPod,
  defaultSizes,
  type ManifestOptions,
} from "../../plugins/sandbox-kubernetes/manifests.ts";
import { defaultSandboxImage } from "../../plugins/sandbox-kubernetes/runtime.ts";
import { createTestPlatform, type TestPlatform } from "../support/platforms.ts";

const root = join(import.meta.dirname, "../..");
const manifestDirectory = join(root, "deploy/kubernetes");
const pluginDirectory = join(root, "plugins/sandbox-kubernetes");

// biome-ignore lint/suspicious/noExplicitAny: manifests are untyped YAML, checked field by field.
type Manifest = any;

async function loadManifests(): Promise<Manifest[]> {
  const files = (await readdir(manifestDirectory)).filter((file) => file.endsWith(".yaml")).sort();
  const manifests: Manifest[] = [];
  for (const file of files) {
    for (const document of parseAllDocuments(await readFile(join(manifestDirectory, file), "utf8"))) {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0].message}`);
      manifests.push(document.toJS());
    }
  }
  return manifests;
}

// The API groups the manifests use, by apiVersion.
const modelsByApiVersion: Record<string, Record<string, unknown>> = {
  v1: core,
  "apps/v1": apps,
  "networking.k8s.io/v1": networking,
  "policy/v1": policy,
  "rbac.authorization.k8s.io/v1": rbac,
};

/** The kubernetes-models class of a document's apiVersion and kind. */
function modelOf(manifest: Manifest) {
  const model = modelsByApiVersion[manifest.apiVersion]?.[manifest.kind];
  if (!model) throw new Error(`no kubernetes-models class for ${manifest.apiVersion} ${manifest.kind}`);
  return model as new (
    data: unknown,
  ) => { validate(): void };
}

// What a client-node call means to RBAC: (group, resource) per kind, the verb per method prefix.
const resources: Record<string, [group: string, resource: string]> = {
  Pod: ["", "pods"],
  PersistentVolumeClaim: ["", "persistentvolumeclaims"],
  NetworkPolicy: ["networking.k8s.io", "networkpolicies"],
  Job: ["batch", "jobs"],
};
const verbs: Record<string, string> = {
  create: "create",
  read: "get",
  get: "get",
  list: "list",
  delete: "delete",
  patch: "patch",
  replace: "update",
};
const callPattern =
  /\.\s*(create|read|get|list|delete|patch|replace)Namespaced([A-Z][A-Za-z]*?)(Log|Status)?\s*\(/g;
// A custom resource (CustomObjectsApi) is named by one `{ group, version, plural }` in its file.
const customResourcePattern = /group: "([^"]+)", version: "[^"]+", plural: "([^"]+)"/;

/** "group/resource verb" for every Kubernetes API call in the given source files. */
async function apiCalls(files: string[]): Promise<Set<string>> {
  const calls = new Set<string>();
  for (const file of files) {
    const source = await readFile(join(pluginDirectory, file), "utf8");
    const custom = customResourcePattern.exec(source);
    for (const [, method, kind, subresource] of source.matchAll(callPattern)) {
      const known = kind === "CustomObject" && custom ? ([custom[1], custom[2]] as const) : resources[kind];
      if (!known) throw new Error(`${file}: ${method}Namespaced${kind}: add ${kind} to the resource table`);
      const resource = subresource ? `${known[1]}/${subresource.toLowerCase()}` : known[1];
      calls.add(`${known[0]}/${resource} ${verbs[method]}`);
    }
    // Exec opens a websocket (a GET upgrade): older API servers authorise it as get, newer as create.
    if (/new Exec\(/.test(source)) {
      calls.add("/pods/exec create");
      calls.add("/pods/exec get");
    }
  }
  return calls;
}

// The volume types the restricted Pod Security Standard admits.
const restrictedVolumeTypes = new Set([
  "configMap",
  "csi",
  "downwardAPI",
  "emptyDir",
  "ephemeral",
  "persistentVolumeClaim",
  "projected",
  "secret",
]);

/**
 * What the restricted Pod Security Standard (kubernetes.io/docs/concepts/security/pod-security-standards)
 * would refuse in a pod spec, one line per control: the baseline ones (host namespaces, privileged,
 * capabilities beyond the default set, host paths and ports) and the restricted ones (volume types,
 * privilege escalation, non-root, seccomp, dropping ALL capabilities).
 */
function restrictedViolations(spec: Manifest): string[] {
  const violations: string[] = [];
  for (const field of ["hostNetwork", "hostPID", "hostIPC"]) if (spec[field]) violations.push(field);
  for (const volume of spec.volumes ?? []) {
    const type = Object.keys(volume).find((key) => key !== "name") as string;
    if (!restrictedVolumeTypes.has(type)) violations.push(`volume ${volume.name}: ${type}`);
  }
  const pod = spec.securityContext ?? {};
  for (const container of [...(spec.initContainers ?? []), ...spec.containers]) {
    const context = { ...pod, ...container.securityContext };
    const where = `container ${container.name}`;
    if (context.privileged) violations.push(`${where}: privileged`);
    if (context.allowPrivilegeEscalation !== false) violations.push(`${where}: allowPrivilegeEscalation`);
    if (context.runAsNonRoot !== true) violations.push(`${where}: runAsNonRoot`);
    if (context.runAsUser === 0) violations.push(`${where}: runAsUser 0`);
    if (!["RuntimeDefault", "Localhost"].includes(context.seccompProfile?.type))
      violations.push(`${where}: seccompProfile`);
    if (!container.securityContext?.capabilities?.drop?.includes("ALL"))
      violations.push(`${where}: drop ALL`);
    const added = container.securityContext?.capabilities?.add ?? [];
    if (added.some((capability: string) => capability !== "NET_BIND_SERVICE"))
      violations.push(`${where}: adds ${added}`);
    if ((container.ports ?? []).some((port: { hostPort?: number }) => port.hostPort))
      violations.push(`${where}: hostPort`);
  }
  return violations;
}

/** The settings core/config.ts declares, read from its schema's source. */
async function declaredSettings(): Promise<Set<string>> {
  const source = await readFile(join(root, "core/config.ts"), "utf8");
  return new Set([...source.matchAll(/^\s+(SVC_[A-Z0-9_]+):/gm)].map((match) => match[1]));
}

let manifests: Manifest[];
const find = (kind: string, name?: string): Manifest => {
  const found = manifests.filter(
    (manifest) => manifest.kind === kind && (!name || manifest.metadata.name === name),
  );
  expect(found, `${kind} ${name ?? ""}`).toHaveLength(1);
  return found[0];
};

beforeAll(async () => {
  manifests = await loadManifests();
});

describe("deploy/kubernetes against the Kubernetes API schemas", () => {
  it("validates every document with its kind's model", () => {
    const kinds = manifests.map((manifest) => `${manifest.apiVersion} ${manifest.kind}`);
    expect(new Set(kinds)).toEqual(
      new Set([
        "v1 Namespace",
        "networking.k8s.io/v1 NetworkPolicy",
        "v1 ServiceAccount",
        "rbac.authorization.k8s.io/v1 Role",
        "rbac.authorization.k8s.io/v1 RoleBinding",
        "v1 ConfigMap",
        "apps/v1 Deployment",
        "v1 Service",
        "policy/v1 PodDisruptionBudget",
      ]),
    );
    for (const manifest of manifests) {
      const Model = modelOf(manifest);
      expect(
        () => new Model(manifest).validate(),
        `${manifest.kind} ${manifest.metadata?.name}`,
      ).not.toThrow();
    }
  });

  it("the schema check refuses a broken document (the validator is live)", () => {
    const deployment = structuredClone(find("Deployment"));
    deployment.spec.replicas = "two";
    const Model = modelOf(deployment);
    expect(() => new Model(deployment).validate()).toThrow(/replicas must be integer/);
  });
});

describe("the control plane matches the server", () => {
  let test: TestPlatform;
  beforeAll(async () => {
    test = await createTestPlatform("sqlite");
  });
  afterAll(() => test?.close());

  it("runs two replicas behind a Service, kept at one or more by a PodDisruptionBudget", () => {
    const deployment = find("Deployment", "cairn-server");
    const podLabels = deployment.spec.template.metadata.labels;
    expect(deployment.spec.replicas).toBe(2);
    expect(podLabels).toMatchObject(deployment.spec.selector.matchLabels);
    const service = find("Service", "cairn-server");
    expect(podLabels).toMatchObject(service.spec.selector);
    // MCP sessions are held by one replica (test/scale/replicas.test.ts).
    expect(service.spec.sessionAffinity).toBe("ClientIP");
    const budget = find("PodDisruptionBudget", "cairn-server");
    expect(budget.spec.minAvailable).toBe(1);
    expect(podLabels).toMatchObject(budget.spec.selector.matchLabels);
  });

  it("probes /health for liveness and /health/ready for readiness, routes the server answers", async () => {
    const [container] = find("Deployment", "cairn-server").spec.template.spec.containers;
    expect(container.livenessProbe.httpGet.path).toBe("/health");
    expect(container.readinessProbe.httpGet.path).toBe("/health/ready");
    for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe]) {
      expect(container.ports.map((port: { name: string }) => port.name)).toContain(probe.httpGet.port);
      expect((await test.request(probe.httpGet.path)).status).toBe(200);
    }
  });

  it("uses only settings core/config.ts declares, and they parse", async () => {
    const declared = await declaredSettings();
    const configMap = find("ConfigMap", "cairn-config");
    const [container] = find("Deployment", "cairn-server").spec.template.spec.containers;
    const fromSecret = container.env.map((variable: { name: string; valueFrom: Manifest }) => {
      expect(variable.valueFrom.secretKeyRef.key).toBe(variable.name);
      return variable.name;
    });
    for (const name of [...Object.keys(configMap.data), ...fromSecret]) expect(declared).toContain(name);
    expect(container.envFrom).toEqual([{ configMapRef: { name: "cairn-config" } }]);
    // The Secret's values are the operator's; any well-formed ones make a configuration that parses.
    const config = loadConfig({
      ...configMap.data,
      SVC_DATABASE_URL: "postgres://cairn:secret@postgres.cairn:5432/cairn",
      SVC_JWT_SECRET: "x".repeat(48),
      SVC_SECRETS_KEY: "y".repeat(48),
    });
    expect(config.SVC_ENV).toBe("production");
    // Two replicas need buckets they share.
    expect(["postgres", "redis"]).toContain(config.SVC_RATE_LIMIT_STORE);
    expect(config.SVC_SANDBOX_RUNTIME).toBe("kubernetes");
  });

  it("serves on the server's port and runs the image of this version", async () => {
    const [container] = find("Deployment", "cairn-server").spec.template.spec.containers;
    const { SVC_PORT: defaultPort } = loadConfig({});
    const configured = loadConfig(find("ConfigMap", "cairn-config").data).SVC_PORT;
    expect(configured).toBe(defaultPort);
    expect(container.ports).toEqual([{ name: "http", containerPort: configured }]);
    expect(find("Service", "cairn-server").spec.ports).toEqual([
      { name: "http", port: configured, targetPort: "http" },
    ]);
    const dockerfile = await readFile(join(root, "Dockerfile"), "utf8");
    expect(dockerfile).toContain(`EXPOSE ${configured}`);
    const { version } = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { version: string };
    expect(container.image).toMatch(new RegExp(`/cairn/server:${version.replaceAll(".", "\\.")}$`));
    // The data directory the server writes is a mounted volume (the root file system is read-only).
    const dataDir = find("ConfigMap", "cairn-config").data.SVC_DATA_DIR;
    expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(container.volumeMounts.map((mount: { mountPath: string }) => mount.mountPath)).toContain(dataDir);
  });
});

describe("the sandbox namespace", () => {
  const sandboxNamespace = () => find("ConfigMap", "cairn-config").data.SVC_KUBE_NAMESPACE;

  it("is enforced restricted, like the control plane's", () => {
    for (const name of [sandboxNamespace(), find("Deployment").metadata.namespace]) {
      expect(find("Namespace", name).metadata.labels).toMatchObject({
        "pod-security.kubernetes.io/enforce": "restricted",
      });
    }
  });

  it("denies all ingress and egress unless a sandbox's own policy allows it", () => {
    const policy = find("NetworkPolicy");
    expect(policy.metadata.namespace).toBe(sandboxNamespace());
    expect(policy.spec).toEqual({ podSelector: {}, policyTypes: ["Ingress", "Egress"] });
  });

  it("admits the pods the runtime creates there, and refuses the image-build Job's (so builds are off)", () => {
    const options: ManifestOptions = {
      image: defaultSandboxImage,
      sizes: defaultSizes,
      activeDeadlineSeconds: 7200,
      runtimeClassName: null,
      egressPorts: [443],
      allowPrivateEgress: false,
      volumeClaimName: (volumeId) => `cairn-volume-${volumeId}`,
      volumeStorageClass: null,
    };
    const spec = {
      id: crypto.randomUUID(),
      accountId: crypto.randomUUID(),
      size: "small" as const,
      storageGb: 2,
      egressHosts: ["mcp.example.com"],
      volumeMounts: [{ volumeId: crypto.randomUUID(), mountPath: "/data" }],
    };
    const pod = buildPod(spec, options);
    const policy = buildNetworkPolicy(spec, options, ["203.0.113.9"]);
    for (const made of [pod, policy]) expect(() => new (modelOf(made))(made).validate()).not.toThrow();
    expect(restrictedViolations(pod.spec)).toEqual([]);
    // The control plane's own namespace is restricted too.
    expect(restrictedViolations(find("Deployment", "cairn-server").spec.template.spec)).toEqual([]);

    const job = buildImageJob(
      {
        ...spec,
        base: "default",
        pythonPackages: [],
        aptPackages: ["jq"],
        npmPackages: [],
        specHash: "0".repeat(64),
      },
      sandboxNamespace(),
      {
        baseImages: { default: defaultSandboxImage },
        builderImage: "gcr.io/kaniko-project/executor:v1.23.2",
        repository: "registry.example.com/cairn/images",
        registrySecret: "cairn-registry",
        timeoutSeconds: 900,
      },
    );
    const refused = restrictedViolations(job.spec?.template.spec);
    expect(refused).toContain(`container ${buildContainerName}: runAsNonRoot`);
    expect(loadConfig(find("ConfigMap", "cairn-config").data).SVC_IMAGE_BUILDER_ENABLED).toBe(false);
  });

  it("grants the server's service account exactly the API calls the sandbox runtime makes", async () => {
    const sources = (await readdir(pluginDirectory)).filter(
      (file) => file.endsWith(".ts") && !file.endsWith(".test.ts"),
    );
    const builderFiles = sources.filter((file) => file.startsWith("image-"));
    const runtimeCalls = await apiCalls(sources.filter((file) => !builderFiles.includes(file)));
    // Without these the derivation would be vacuous.
    expect(runtimeCalls).toContain("/pods create");
    expect(runtimeCalls).toContain("/pods/exec create");
    expect(runtimeCalls).toContain("networking.k8s.io/networkpolicies delete");
    const buildsEnabled = loadConfig(find("ConfigMap", "cairn-config").data).SVC_IMAGE_BUILDER_ENABLED;
    const needed = buildsEnabled
      ? new Set([...runtimeCalls, ...(await apiCalls(builderFiles))])
      : runtimeCalls;

    const role = find("Role", "cairn-sandbox-runtime");
    expect(role.metadata.namespace).toBe(sandboxNamespace());
    const granted = new Set<string>();
    for (const rule of role.rules) {
      expect(rule.resourceNames).toBeUndefined();
      for (const group of rule.apiGroups)
        for (const resource of rule.resources)
          for (const verb of rule.verbs) granted.add(`${group}/${resource} ${verb}`);
    }
    expect([...granted].sort()).toEqual([...needed].sort());
    expect(manifests.some((manifest) => manifest.kind.startsWith("Cluster"))).toBe(false);

    const binding = find("RoleBinding", "cairn-sandbox-runtime");
    const deployment = find("Deployment", "cairn-server");
    expect(binding.metadata.namespace).toBe(sandboxNamespace());
    expect(binding.roleRef).toEqual({
      apiGroup: "rbac.authorization.k8s.io",
      kind: "Role",
      name: role.metadata.name,
    });
    expect(binding.subjects).toEqual([
      {
        kind: "ServiceAccount",
        name: deployment.spec.template.spec.serviceAccountName,
        namespace: deployment.metadata.namespace,
      },
    ]);
    expect(find("ServiceAccount", deployment.spec.template.spec.serviceAccountName).metadata.namespace).toBe(
      deployment.metadata.namespace,
    );
  });
});
