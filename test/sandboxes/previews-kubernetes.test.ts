/**
 * Previews and the takeover terminal over the Kubernetes runtime, at the HTTP boundary of a fake
 * cluster (docs/sandboxes.md#previews): the preview relay and the PTY helper each start as one
 * exec into the sandbox's pod with stdin (the exact argv asserted), and carry their bytes over
 * the exec's channels. The exec handler runs what it is asked on this machine, so the relay
 * really reaches a server on this machine's loopback (the pod's, in a cluster) and the helper
 * really makes a PTY.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { previewExchange } from "../../core/index.ts";
import { relayCommand } from "../../core/sandboxes/previews/relay.ts";
import { createRelayPool } from "../../core/sandboxes/previews/relay-pool.ts";
import { ptyHelperCommand } from "../../core/sandboxes/takeover/pty-helper.ts";
import { createTakeoverTerminals } from "../../core/sandboxes/takeover/terminals.ts";
import { createKubernetesSandboxRuntime } from "../../plugins/sandbox-kubernetes/index.ts";
import { commandWrapper } from "../../plugins/sandbox-kubernetes/pod-process.ts";
import {
  channelFrame,
  createFakeKubernetesCluster,
  execLink,
  interceptableExecWebSocket,
  messageBytes,
  statusFrame,
  testKubeConfig,
} from "../doubles/fake-kubernetes-cluster.ts";

const sandboxId = "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a";
const podName = `cairn-sandbox-${sandboxId}`;
const cluster = createFakeKubernetesCluster();
const kubeConfig = testKubeConfig();
const children: ChildProcess[] = [];
const urls: URL[] = [];
let server: Server;

beforeAll(async () => {
  cluster.network.enable();
  server = createServer((request, response) => response.end(`pod says ${request.method} ${request.url}`));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  cluster.network.resetHandlers();
  await cluster.takeRequests();
  urls.length = 0;
});
afterAll(async () => {
  cluster.network.disable();
  await new Promise((resolve) => server.close(resolve));
});

/** Runs each exec on this machine: the wrapper's `exec env "$@"` as it is, without its `cd`. */
function runExecsHere() {
  cluster.network.use(
    execLink.addEventListener("connection", ({ client }) => {
      urls.push(client.url);
      const [shell = "/bin/sh", flag = "-c", script, ...rest] = client.url.searchParams.getAll("command");
      const local = script === commandWrapper ? 'exec env "$@"' : (script ?? "");
      const child = spawn(shell, [flag, local, ...rest], { stdio: ["pipe", "pipe", "pipe"] });
      children.push(child);
      child.stdin.on("error", () => {});
      client.addEventListener("message", (event) => {
        const bytes = messageBytes(event.data);
        if (bytes[0] === 0 && bytes.length > 1) child.stdin.write(bytes.subarray(1));
      });
      child.stdout.on("data", (chunk: Buffer) => client.send(channelFrame(1, chunk)));
      child.stderr.on("data", (chunk: Buffer) => client.send(channelFrame(2, chunk)));
      child.on("close", (code) => client.send(statusFrame(code ?? 137)));
    }),
  );
}

const runtime = () =>
  createKubernetesSandboxRuntime({
    namespace: "cairn-sandboxes",
    kubeConfig,
    execWebSocket: interceptableExecWebSocket(kubeConfig),
  });

const wrapped = (command: string[]) => [
  "/bin/sh",
  "-c",
  commandWrapper,
  "cairn-process",
  expect.stringMatching(/^CAIRN_PROCESS=[0-9a-f]{24}$/),
  ...command,
];

test("a preview's relay is one exec into the pod, and requests reach the pod's port through it", async () => {
  runExecsHere();
  const relays = createRelayPool();
  const { port } = server.address() as AddressInfo;
  const kubernetes = runtime();
  for (const path of ["/first", "/second?x=1"]) {
    const connection = await relays.connect(kubernetes, sandboxId, port);
    const answer = await previewExchange(
      connection,
      new Request(`http://cairn.test/v1/previews/t${path}`),
      path,
      port,
    );
    expect([answer.status, await answer.text()]).toEqual([200, `pod says GET ${path}`]);
  }
  // One relay for both requests: one exec, to the pod's exec endpoint, with stdin.
  expect(urls).toHaveLength(1);
  expect(urls[0]?.origin + (urls[0]?.pathname ?? "")).toBe(
    `wss://kubernetes.test/api/v1/namespaces/cairn-sandboxes/pods/${podName}/exec`,
  );
  expect(urls[0]?.searchParams.getAll("command")).toEqual(wrapped(relayCommand));
  expect(urls[0]?.searchParams.get("stdin")).toBe("true");
  relays.close();
});

test("the takeover terminal's PTY helper is one exec into the pod, resized in band", async () => {
  runExecsHere();
  const terminals = createTakeoverTerminals({ now: () => new Date() });
  let shown = "";
  const terminal = terminals.attach(
    runtime(),
    sandboxId,
    { send: (bytes) => (shown += new TextDecoder().decode(bytes)), close: () => {} },
    { readOnly: false, rows: 20, cols: 70 },
  );
  terminal.input(new TextEncoder().encode("stty size\n"));
  await expect.poll(() => shown, { timeout: 10_000 }).toContain("20 70");
  terminal.resize(33, 99);
  terminal.input(new TextEncoder().encode("stty size\n"));
  await expect.poll(() => shown, { timeout: 10_000 }).toContain("33 99");
  expect(urls).toHaveLength(1);
  expect(urls[0]?.searchParams.getAll("command")).toEqual(wrapped(ptyHelperCommand(20, 70)));
  terminal.detach();
});
