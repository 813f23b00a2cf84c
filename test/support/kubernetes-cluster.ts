/**
 * A real Kubernetes control plane for the tests, with simulated nodes: etcd, kube-apiserver
 * (RBAC, admission with PodSecurity), kube-controller-manager, kube-scheduler, the volume-snapshot
 * API (external-snapshotter's CRDs and snapshot controller) and kwok with one
 * fake node whose exec endpoint runs each command in a bubblewrap sandbox over the pod's own
 * folders, from the binaries scripts/kubernetes-test-cluster/build.sh builds from the Go module
 * proxy (the control plane as one multi-call binary, and kwok; cached under
 * .test-data/kubernetes/<versions>/). Start waits for
 * conditions (readyz, the node Ready, the namespaces' default service accounts), applies
 * deploy/kubernetes/*.yaml as admin with strict field validation, and hands out a kubeconfig
 * holding a TokenRequest token of Cairn's own service account, so Cairn runs with its real RBAC.
 * Everything lives under .test-data/kubernetes/run-<pid>-<time>/ and is removed by stop().
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadAllYaml } from "@kubernetes/client-node";
import { parse as parseYaml } from "yaml";
import { type ClusterApi, createClusterApi, pollUntil } from "./kubernetes-cluster-api.ts";
import { type ClientName, createClusterCertificates } from "./kubernetes-cluster-certificates.ts";
import {
  buildKubernetesTestCluster,
  clusterModule,
  collectionPath,
  freePort,
  kubeConfig,
  removeAbandonedRuns,
  repository,
} from "./kubernetes-cluster-helpers.ts";

const sandboxNamespace = "cairn-sandboxes";
const nodeName = "kwok-node-0";

export interface KubernetesTestCluster {
  server: string;
  caCertificate: string;
  /** Admin (system:masters): for the test's own set-up and assertions. */
  admin: ClusterApi;
  adminKubeConfigPath: string;
  /** Cairn's service account cairn/cairn-server, with a TokenRequest token: its real RBAC. */
  cairnKubeConfigPath: string;
  sandboxNamespace: string;
  /** Where each pod's /workspace and /tmp live: `<podsDirectory>/<namespace>/<pod>/`. */
  podsDirectory: string;
  /** The last lines of a component's log, for failure messages. */
  logTail(component: string): string;
  /** The argv of each exec the node ran in a pod of the sandbox namespace, in order (pod-exec-server's log). */
  execs(pod: string): string[][];
  stop(): Promise<void>;
}

export async function startKubernetesTestCluster(): Promise<KubernetesTestCluster> {
  const programs = buildKubernetesTestCluster();
  removeAbandonedRuns(join(repository, ".test-data/kubernetes"));
  const run = join(repository, ".test-data/kubernetes", `run-${process.pid}-${Date.now()}`);
  const logs = join(run, "logs");
  for (const folder of ["certificates", "etcd", "logs", "pods", "kubeconfigs"])
    mkdirSync(join(run, folder), { recursive: true });
  const certificates = createClusterCertificates(join(run, "certificates"));
  const [etcdPort, etcdPeerPort, apiPort, controllerPort, schedulerPort, kwokPort, execPort] =
    await Promise.all(Array.from({ length: 7 }, freePort));
  const server = `https://127.0.0.1:${apiPort}`;
  const kubeConfigOf = (name: ClientName) => {
    const path = join(run, "kubeconfigs", `${name}.kubeconfig`);
    const pair = certificates.clients[name];
    writeFileSync(
      path,
      kubeConfig(server, certificates.caCertificate, {
        "client-certificate": pair.certificate,
        "client-key": pair.key,
      }),
    );
    return path;
  };

  const processes: Array<{ name: string; child: ChildProcess }> = [];
  const logTail = (component: string) => {
    try {
      return readFileSync(join(logs, `${component}.log`), "utf8")
        .split("\n")
        .slice(-40)
        .join("\n");
    } catch {
      return "";
    }
  };
  // setpriv --pdeathsig: a component dies with the test process even when stop() never runs.
  const start = (name: string, command: string[], env: Record<string, string> = {}) => {
    const log = openSync(join(logs, `${name}.log`), "a");
    const child = spawn("setpriv", ["--pdeathsig", "SIGKILL", "--", ...command], {
      stdio: ["ignore", log, log],
      env: { ...process.env, ...env },
    });
    closeSync(log);
    processes.push({ name, child });
    child.once("exit", (code, signal) => {
      if (!stopping) exits.push(`${name} exited (${code ?? signal})\n${logTail(name)}`);
    });
  };
  let stopping = false;
  const exits: string[] = [];
  const describe = (component: string) => () =>
    [...exits, `${component} log:`, logTail(component)].join("\n");

  const stop = async () => {
    stopping = true;
    for (const { child } of processes.reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((done) => child.once("exit", done));
      child.kill("SIGTERM");
      const forced = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(forced);
    }
    if (process.env.CAIRN_KEEP_KUBERNETES_TEST_CLUSTER !== "1") rmSync(run, { recursive: true, force: true });
  };

  try {
    const program = (name: string) => join(programs, name);
    start("etcd", [
      program("etcd"),
      ...["--name", "default", "--data-dir", join(run, "etcd"), "--unsafe-no-fsync"],
      ...["--listen-client-urls", `http://127.0.0.1:${etcdPort}`],
      ...["--advertise-client-urls", `http://127.0.0.1:${etcdPort}`],
      ...["--listen-peer-urls", `http://127.0.0.1:${etcdPeerPort}`],
      ...["--initial-advertise-peer-urls", `http://127.0.0.1:${etcdPeerPort}`],
      ...["--initial-cluster", `default=http://127.0.0.1:${etcdPeerPort}`],
    ]);
    start("kube-apiserver", [
      program("kube-apiserver"),
      `--etcd-servers=http://127.0.0.1:${etcdPort}`,
      "--bind-address=127.0.0.1",
      "--advertise-address=127.0.0.1",
      `--secure-port=${apiPort}`,
      `--tls-cert-file=${certificates.apiServer.certificate}`,
      `--tls-private-key-file=${certificates.apiServer.key}`,
      `--client-ca-file=${certificates.caCertificate}`,
      "--authorization-mode=Node,RBAC",
      "--enable-admission-plugins=NamespaceLifecycle,LimitRanger,ServiceAccount,PodSecurity,DefaultStorageClass,ResourceQuota,NodeRestriction",
      "--service-cluster-ip-range=10.0.0.0/24",
      "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
      `--service-account-key-file=${certificates.serviceAccountPublicKey}`,
      `--service-account-signing-key-file=${certificates.serviceAccountKey}`,
      `--kubelet-client-certificate=${certificates.clients["kubelet-client"].certificate}`,
      `--kubelet-client-key=${certificates.clients["kubelet-client"].key}`,
      `--kubelet-certificate-authority=${certificates.caCertificate}`,
      "--kubelet-preferred-address-types=InternalIP",
      "--allow-privileged=false",
      "--profiling=false",
    ]);
    const admin = createClusterApi({
      server,
      caCertificate: certificates.caCertificate,
      ...certificates.clients.admin,
    });
    await pollUntil(
      "kube-apiserver /readyz",
      async () => ((await admin.request("GET", "/readyz")).status === 200 ? true : undefined),
      { hopeless: () => exits[0], timeoutMs: 120_000, intervalMs: 200, describe: describe("kube-apiserver") },
    );

    const controllerManagerKubeConfig = kubeConfigOf("controller-manager");
    start("kube-controller-manager", [
      program("kube-controller-manager"),
      `--kubeconfig=${controllerManagerKubeConfig}`,
      `--authentication-kubeconfig=${controllerManagerKubeConfig}`,
      `--authorization-kubeconfig=${controllerManagerKubeConfig}`,
      "--bind-address=127.0.0.1",
      `--secure-port=${controllerPort}`,
      "--leader-elect=false",
      "--use-service-account-credentials=true",
      `--service-account-private-key-file=${certificates.serviceAccountKey}`,
      `--root-ca-file=${certificates.caCertificate}`,
      "--service-cluster-ip-range=10.0.0.0/24",
      "--profiling=false",
    ]);
    const schedulerKubeConfig = kubeConfigOf("scheduler");
    start("kube-scheduler", [
      program("kube-scheduler"),
      `--kubeconfig=${schedulerKubeConfig}`,
      `--authentication-kubeconfig=${schedulerKubeConfig}`,
      `--authorization-kubeconfig=${schedulerKubeConfig}`,
      "--bind-address=127.0.0.1",
      `--secure-port=${schedulerPort}`,
      "--leader-elect=false",
      "--profiling=false",
    ]);

    // kwok's stages (how nodes and pods move through their phases), from the module it was built from.
    const kwokModule = execFileSync("go", ["list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/kwok"], {
      cwd: join(clusterModule, "kwok"),
      encoding: "utf8",
      env: { ...process.env, PATH: `/usr/local/go/bin:${process.env.PATH}`, GOFLAGS: "-mod=mod" },
    }).trim();
    const kwokStages = [
      "node/fast/node-initialize.yaml",
      "node/heartbeat/node-heartbeat.yaml",
      "pod/fast/pod-ready.yaml",
      "pod/fast/pod-complete.yaml",
      "pod/fast/pod-delete.yaml",
    ]
      .map((stage) => join(kwokModule, "kustomize/stage", stage))
      .concat(join(clusterModule, "kwok-stages/kaniko.yaml"));

    // The fake node: kwok keeps it Ready and moves the pods bound to it through their phases.
    await admin.send("POST", "/api/v1/nodes", {
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name: nodeName,
        annotations: { "kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0" },
        labels: { "kubernetes.io/hostname": nodeName, "kubernetes.io/os": "linux", type: "kwok" },
      },
      status: {
        capacity: { cpu: "32", memory: "256Gi", "ephemeral-storage": "1Ti", pods: "110" },
        allocatable: { cpu: "32", memory: "256Gi", "ephemeral-storage": "1Ti", pods: "110" },
      },
    });
    // The node's kubelet port (which kwok publishes in the node's status) is pod-exec-server's:
    // the API server proxies each exec there, and it runs the command in the pod's sandbox. Its
    // pods hold the language servers of this install, as a sandbox image made for them does.
    start(
      "pod-exec-server",
      [
        program("pod-exec-server"),
        `--listen=127.0.0.1:${execPort}`,
        `--tls-cert-file=${certificates.kwokServer.certificate}`,
        `--tls-private-key-file=${certificates.kwokServer.key}`,
        `--client-ca-file=${certificates.caCertificate}`,
        `--pods-dir=${join(run, "pods")}`,
        `--pod-command=${join(clusterModule, "pod-command.sh")}`,
      ],
      { CAIRN_POD_LSP_MODULES: join(repository, "node_modules") },
    );
    start("kwok", [
      program("kwok"),
      `--kubeconfig=${kubeConfigOf("admin")}`,
      `--config=${kwokStages.join(",")}`,
      "--manage-all-nodes=true",
      "--node-ip=127.0.0.1",
      `--node-port=${execPort}`,
      `--server-address=127.0.0.1:${kwokPort}`,
      `--tls-cert-file=${certificates.kwokServer.certificate}`,
      `--tls-private-key-file=${certificates.kwokServer.key}`,
      "--node-lease-duration-seconds=0",
      "--cidr=10.244.0.0/16",
    ]);
    await pollUntil(
      `node ${nodeName} Ready`,
      async () => {
        const node = (await admin.send("GET", `/api/v1/nodes/${nodeName}`)) as {
          status?: { conditions?: Array<{ type: string; status: string }> };
        };
        return node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")
          ? true
          : undefined;
      },
      { hopeless: () => exits[0], timeoutMs: 60_000, describe: describe("kwok") },
    );

    // deploy/kubernetes as an operator would apply it, every field checked.
    for (const file of readdirSync(join(repository, "deploy/kubernetes")).sort()) {
      if (!file.endsWith(".yaml")) continue;
      for (const object of loadAllYaml(readFileSync(join(repository, "deploy/kubernetes", file), "utf8"))) {
        await admin.send("POST", `${collectionPath(object)}?fieldValidation=Strict`, object);
      }
    }

    // The volume-snapshot API, as a cluster with snapshots has it: external-snapshotter's CRDs
    // (parsed as plain YAML: client-node's loader renames the schemas' `enum` fields) and its
    // snapshot controller. A CSI driver's part is the tests' (kubernetes-cluster-storage.ts).
    const definitions = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    for (const file of readdirSync(join(programs, "volume-snapshot-crds")).sort()) {
      const definition = parseYaml(readFileSync(join(programs, "volume-snapshot-crds", file), "utf8")) as {
        metadata: { name: string };
      };
      await admin.send("POST", `${definitions}?fieldValidation=Strict`, definition);
      await pollUntil(
        `CustomResourceDefinition ${definition.metadata.name} established`,
        async () => {
          const read = (await admin.send("GET", `${definitions}/${definition.metadata.name}`)) as {
            status?: { conditions?: Array<{ type: string; status: string }> };
          };
          return read.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")
            ? true
            : undefined;
        },
        { hopeless: () => exits[0], timeoutMs: 60_000, describe: describe("kube-apiserver") },
      );
    }
    start("snapshot-controller", [
      program("snapshot-controller"),
      `--kubeconfig=${kubeConfigOf("admin")}`,
      "--leader-election=false",
      "--worker-threads=2",
      "--retry-interval-start=100ms",
      "--retry-interval-max=2s",
      "--v=4",
    ]);

    // The service account controller gives each namespace its `default` account; pods need it.
    for (const namespace of ["cairn", sandboxNamespace]) {
      await pollUntil(
        `service account ${namespace}/default`,
        async () =>
          (await admin.request("GET", `/api/v1/namespaces/${namespace}/serviceaccounts/default`)).status ===
          200
            ? true
            : undefined,
        { hopeless: () => exits[0], timeoutMs: 60_000, describe: describe("kube-controller-manager") },
      );
    }
    const token = (await admin.send("POST", "/api/v1/namespaces/cairn/serviceaccounts/cairn-server/token", {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: { expirationSeconds: 3600 },
    })) as { status: { token: string } };
    const cairnKubeConfigPath = join(run, "kubeconfigs", "cairn-server.kubeconfig");
    writeFileSync(
      cairnKubeConfigPath,
      kubeConfig(server, certificates.caCertificate, { token: token.status.token }),
    );

    return {
      server,
      caCertificate: certificates.caCertificate,
      admin,
      adminKubeConfigPath: kubeConfigOf("admin"),
      cairnKubeConfigPath,
      sandboxNamespace,
      podsDirectory: join(run, "pods"),
      logTail,
      execs: (pod) =>
        readFileSync(join(logs, "pod-exec-server.log"), "utf8")
          .split("\n")
          .flatMap((line) => {
            const found = / exec ([^/ ]+)\/(\S+) \S+ (\[.*\])$/.exec(line);
            return found?.[1] === sandboxNamespace && found[2] === pod
              ? [JSON.parse(found[3] ?? "[]") as string[]]
              : [];
          }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
