/**
 * Keys and certificates of the test Kubernetes cluster, made with openssl: one CA, the API
 * server's serving certificate, a client certificate per component, kwok's serving certificate
 * (the API server verifies it when it proxies an exec to the fake node) and the service
 * account signing key pair.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export interface ClusterCertificates {
  caCertificate: string;
  apiServer: KeyPair;
  kwokServer: KeyPair;
  /** Clients by name: admin (system:masters), controller-manager, scheduler, kubelet-client. */
  clients: Record<ClientName, KeyPair>;
  serviceAccountKey: string;
  serviceAccountPublicKey: string;
}

export interface KeyPair {
  certificate: string;
  key: string;
}

export type ClientName = "admin" | "controller-manager" | "scheduler" | "kubelet-client";

// Subjects the API server's bootstrap RBAC policy knows.
const clientSubjects: Record<ClientName, string> = {
  admin: "/O=system:masters/CN=cairn-test-admin",
  "controller-manager": "/CN=system:kube-controller-manager",
  scheduler: "/CN=system:kube-scheduler",
  "kubelet-client": "/O=system:masters/CN=kube-apiserver-kubelet-client",
};

function openssl(args: string[]): void {
  execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
}

/** Writes every key and certificate under `directory` and returns their paths. */
export function createClusterCertificates(directory: string): ClusterCertificates {
  const path = (name: string) => join(directory, name);
  const caCertificate = path("ca.crt");
  openssl(["genrsa", "-out", path("ca.key"), "2048"]);
  openssl([
    ...["req", "-x509", "-new", "-key", path("ca.key"), "-subj", "/CN=cairn-test-cluster-ca"],
    ...["-days", "30", "-out", caCertificate],
  ]);

  const sign = (name: string, subject: string, extensions: string): KeyPair => {
    const key = path(`${name}.key`);
    const certificate = path(`${name}.crt`);
    const extensionsFile = path(`${name}.ext`);
    writeFileSync(extensionsFile, `${extensions}\n`);
    openssl(["genrsa", "-out", key, "2048"]);
    openssl(["req", "-new", "-key", key, "-subj", subject, "-out", path(`${name}.csr`)]);
    openssl([
      ...["x509", "-req", "-in", path(`${name}.csr`), "-CA", caCertificate, "-CAkey", path("ca.key")],
      ...["-CAcreateserial", "-days", "30", "-extfile", extensionsFile, "-out", certificate],
    ]);
    return { certificate, key };
  };
  const server = (names: string) =>
    `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=${names}`;
  const client =
    "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth";

  const apiServer = sign(
    "apiserver",
    "/CN=kube-apiserver",
    server(
      "IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local",
    ),
  );
  const kwokServer = sign("kwok", "/CN=kwok-node", server("IP:127.0.0.1,DNS:localhost"));
  const clients = Object.fromEntries(
    Object.entries(clientSubjects).map(([name, subject]) => [name, sign(`client-${name}`, subject, client)]),
  ) as Record<ClientName, KeyPair>;

  const serviceAccountKey = path("service-account.key");
  const serviceAccountPublicKey = path("service-account.pub");
  openssl(["genrsa", "-out", serviceAccountKey, "2048"]);
  openssl(["rsa", "-in", serviceAccountKey, "-pubout", "-out", serviceAccountPublicKey]);
  return { caCertificate, apiServer, kwokServer, clients, serviceAccountKey, serviceAccountPublicKey };
}
