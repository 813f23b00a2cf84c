/**
 * Session processes on Kubernetes (the port's spawnProcess): the exact exec request, stdin and
 * stdout streamed both ways over one websocket, the exit from the status channel and kill (core's
 * LSP client over it on the real cluster: test/sandboxes/kubernetes-real-cluster-processes.test.ts).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import {
  channelFrame,
  createFakeKubernetesCluster,
  execLink,
  interceptableExecWebSocket,
  messageBytes,
  statusFrame,
  testKubeConfig,
} from "../../test/doubles/fake-kubernetes-cluster.ts";
import { processWrapper } from "./pod-process.ts";
import { createKubernetesSandboxRuntime } from "./runtime.ts";

const namespace = "cairn-sandboxes";
const sandboxId = "0b9c6a52-2f4e-4d8a-9a51-6c1d2e3f4a5b";
const podName = `cairn-sandbox-${sandboxId}`;
const cluster = createFakeKubernetesCluster();
const kubeConfig = testKubeConfig();

beforeAll(() => cluster.network.enable());
afterEach(async () => {
  cluster.network.resetHandlers();
  await cluster.takeRequests();
});
afterAll(() => cluster.network.disable());

function runtime() {
  return createKubernetesSandboxRuntime({
    namespace,
    kubeConfig,
    execWebSocket: interceptableExecWebSocket(kubeConfig),
  });
}

async function readText(stream: ReadableStream<Uint8Array>, until: string): Promise<string> {
  const reader = stream.getReader();
  let text = "";
  while (!text.includes(until)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text;
}

describe("spawnProcess", () => {
  test("opens one exec with stdin, runs the argv exactly in /workspace with only the given environment", async () => {
    const urls: URL[] = [];
    cluster.network.use(
      execLink.addEventListener("connection", ({ client }) => {
        urls.push(client.url);
        // An echo: what arrives on stdin (channel 0) goes back on stdout (channel 1).
        client.addEventListener("message", (event) => {
          const bytes = messageBytes(event.data);
          if (bytes[0] === 0 && bytes.length > 1) client.send(channelFrame(1, bytes.subarray(1)));
          if (new TextDecoder().decode(bytes.subarray(1)).includes("bye")) client.send(statusFrame(3));
        });
      }),
    );
    const process = await runtime().spawnProcess?.(sandboxId, {
      command: ["/usr/bin/node", "/cairn/lsp/node_modules/pyright/langserver.index.js", "--stdio"],
      env: { HOME: "/workspace", PATH: "/usr/bin:/bin" },
    });
    if (!process) throw new Error("the Kubernetes runtime has no spawnProcess");
    expect(urls).toHaveLength(1);
    expect(urls[0].origin + urls[0].pathname).toBe(
      `wss://kubernetes.test/api/v1/namespaces/${namespace}/pods/${podName}/exec`,
    );
    expect([...urls[0].searchParams]).toEqual([
      ["stdout", "true"],
      ["stderr", "true"],
      ["stdin", "true"],
      ["tty", "false"],
      ["command", "/bin/sh"],
      ["command", "-c"],
      ["command", processWrapper],
      ["command", "cairn-process"],
      ["command", "HOME=/workspace"],
      ["command", "PATH=/usr/bin:/bin"],
      ["command", "/usr/bin/node"],
      ["command", "/cairn/lsp/node_modules/pyright/langserver.index.js"],
      ["command", "--stdio"],
      ["container", "sandbox"],
    ]);
    const writer = process.stdin.getWriter();
    await writer.write(new TextEncoder().encode("hello over stdin\n"));
    expect(await readText(process.stdout, "hello")).toBe("hello over stdin\n");
    await writer.write(new TextEncoder().encode("bye\n"));
    expect(await process.exited).toBe(3);
  });

  test("kill closes the websocket and ends the process", async () => {
    let closed!: () => void;
    const clientClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    cluster.network.use(
      execLink.addEventListener("connection", ({ client }) => {
        client.addEventListener("close", () => closed());
      }),
    );
    const process = await runtime().spawnProcess?.(sandboxId, { command: ["sleep", "1000"] });
    process?.kill();
    expect(await process?.exited).toBeNull();
    await clientClosed;
  });
});
