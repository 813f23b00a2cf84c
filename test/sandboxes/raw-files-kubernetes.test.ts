/**
 * Raw files (`PUT` and `GET /v1/sandboxes/{id}/files/raw`, docs/sandboxes.md#bytes) through REST
 * on the Kubernetes runtime, with msw playing the API server (test/doubles/fake-kubernetes-cluster.ts)
 * and an exec handler that runs the pod's file script on this machine: an upload reaches the
 * sandbox's pod as one exec per 8 MiB (begin, appends, commit), a download as a stat and one exec
 * per 8 MiB range, each with the exact argv asserted, and the bytes round-trip exactly. The
 * files live under /tmp, one of the runtime's roots, in a folder of this test's own.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { HttpResponse, http } from "msw";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { fileScript } from "../../plugins/sandbox-kubernetes/file-system.ts";
import { createKubernetesSandboxRuntime } from "../../plugins/sandbox-kubernetes/runtime.ts";
import {
  apiServer,
  createFakeKubernetesCluster,
  execLink,
  interceptableExecWebSocket,
  localExecHandler,
  testKubeConfig,
} from "../doubles/fake-kubernetes-cluster.ts";
import type { TestPlatform } from "../support/platforms.ts";
import { createSandboxClient, createSandboxPlatform, type SandboxClient } from "./sandbox-client.ts";

const namespace = "cairn-sandboxes";
const base = `/api/v1/namespaces/${namespace}`;
const policiesPath = `/apis/networking.k8s.io/v1/namespaces/${namespace}/networkpolicies`;
const mebibyte = 1024 * 1024;
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

const cluster = createFakeKubernetesCluster();
const kubeConfig = testKubeConfig();
let test: TestPlatform;
let client: SandboxClient;
let root: string;

beforeAll(async () => {
  cluster.network.enable();
  root = await mkdtemp("/tmp/cairn-k8s-raw-");
  test = await createSandboxPlatform("sqlite", {
    sandboxRuntime: createKubernetesSandboxRuntime({
      namespace,
      kubeConfig,
      image: "registry.test/cairn/sandbox:1",
      pollIntervalMs: 1,
      execWebSocket: interceptableExecWebSocket(kubeConfig),
    }),
  });
  client = await createSandboxClient(test);
});
afterEach(async () => {
  cluster.network.resetHandlers();
  await cluster.takeRequests();
});
afterAll(async () => {
  await test?.close();
  cluster.network.disable();
  await rm(root, { recursive: true, force: true });
});

const echo = async ({ request }: { request: Request }) =>
  HttpResponse.json(await request.json(), { status: 201 });

/** A cluster that accepts every create and delete, reports every pod running, and runs execs here. */
function clusterRunningHere(commands: string[][], urls: string[]) {
  cluster.network.use(
    http.post(`${apiServer}${policiesPath}`, echo),
    http.delete(`${apiServer}${policiesPath}/:name`, () => HttpResponse.json({})),
    http.post(`${apiServer}${base}/pods`, echo),
    http.delete(`${apiServer}${base}/pods/:name`, () => HttpResponse.json({})),
    http.get(`${apiServer}${base}/pods/:name`, ({ params }) =>
      HttpResponse.json({
        metadata: { name: params.name, namespace },
        status: {
          phase: "Running",
          containerStatuses: [{ name: "sandbox", ready: true, state: { running: {} } }],
        },
      }),
    ),
    execLink.addEventListener("connection", ({ client: socket }) => {
      urls.push(socket.url.origin + socket.url.pathname);
    }),
    localExecHandler(commands),
  );
}

/** The file script's argv for one operation, as the runtime runs it in the pod. */
const fileCommand = (operation: string, path: string, number: string) => [
  "timeout",
  "-k",
  "2",
  "60",
  "/bin/sh",
  "-c",
  fileScript,
  "cairn-files",
  operation,
  path,
  number,
  "/workspace",
  "/tmp",
];

describe("raw files on the Kubernetes runtime", () => {
  it("uploads and downloads through the pod's exec API in 8 MiB execs, byte for byte", {
    timeout: 120_000,
  }, async () => {
    const commands: string[][] = [];
    const urls: string[] = [];
    clusterRunningHere(commands, urls);
    const session = await client.createActive();
    expect(session.runtime).toBe("kubernetes");
    const podExec = `wss://kubernetes.test/api/v1/namespaces/${namespace}/pods/cairn-sandbox-${session.id}/exec`;
    const target = `${root}/up/big.bin`;
    const route = `/v1/sandboxes/${session.id}/files/raw?path=${encodeURIComponent(target)}`;
    commands.length = 0;
    urls.length = 0;

    const bytes = randomBytes(17 * mebibyte + 5);
    const uploaded = await test.request(route, {
      method: "PUT",
      body: bytes,
      headers: { "content-type": "application/octet-stream" },
      credential: client.key,
    });
    expect(uploaded.status).toBe(200);
    expect(await uploaded.json()).toEqual({ path: target, size: bytes.length, created: true });
    expect(sha256(await readFile(target))).toBe(sha256(bytes));
    expect((await readdir(`${root}/up`)).filter((name) => name.startsWith(".cairn-upload"))).toEqual([]);
    // A look at the target, a temporary file begun beside it, 8 MiB per exec (the body came in
    // one piece here), the rename over the target: each exec's whole argv.
    expect(new Set(urls)).toEqual(new Set([podExec]));
    const token = commands[1]?.[10] ?? "";
    expect(token).toMatch(/^[0-9a-f]{16}$/);
    expect(commands).toEqual([
      fileCommand("stat", target, "0"),
      fileCommand("begin", target, token),
      fileCommand("append", target, `${token}:${8 * mebibyte}`),
      fileCommand("append", target, `${token}:${8 * mebibyte}`),
      fileCommand("append", target, `${token}:${mebibyte + 5}`),
      fileCommand("commit", target, token),
    ]);

    commands.length = 0;
    urls.length = 0;
    const downloaded = await test.request(route, { credential: client.key });
    expect(downloaded.status).toBe(200);
    expect(downloaded.headers.get("content-type")).toMatch(/^application\/octet-stream/);
    const body = new Uint8Array(await downloaded.arrayBuffer());
    expect([body.length, sha256(body)]).toEqual([bytes.length, sha256(bytes)]);
    // Core's look at the file, the stream's own, then one exec per 8 MiB range (offset:length).
    expect(commands).toEqual([
      fileCommand("stat", target, "0"),
      fileCommand("stat", target, "0"),
      fileCommand("range", target, `0:${8 * mebibyte}`),
      fileCommand("range", target, `${8 * mebibyte}:${8 * mebibyte}`),
      fileCommand("range", target, `${16 * mebibyte}:${mebibyte + 5}`),
    ]);
    expect(new Set(urls)).toEqual(new Set([podExec]));
  });
});
