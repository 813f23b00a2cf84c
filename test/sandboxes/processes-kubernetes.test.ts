/**
 * Background processes over the Kubernetes runtime (docs/sandboxes.md#processes), at the HTTP
 * boundary of a fake cluster: core's process manager starts a command as one exec with stdin
 * (the exact argv asserted), reads its stdout and stderr channels into the output log, and stop
 * sends SIGTERM to the command's processes with a second exec. The exec handler runs what it is
 * asked on this machine (the command, and the signal script that finds the process by its
 * CAIRN_PROCESS token), so the stop really ends a process.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { silentLogger } from "../../core/index.ts";
import { createBackgroundProcesses } from "../../core/sandboxes/processes/background-processes.ts";
import { createKubernetesSandboxRuntime } from "../../plugins/sandbox-kubernetes/index.ts";
import { commandWrapper, signalScript } from "../../plugins/sandbox-kubernetes/pod-process.ts";
import {
  channelFrame,
  createFakeKubernetesCluster,
  execLink,
  interceptableExecWebSocket,
  messageBytes,
  statusFrame,
  testKubeConfig,
} from "../doubles/fake-kubernetes-cluster.ts";

const sandboxId = "3c2b1a09-8f7e-4d6c-9b5a-4f3e2d1c0b9a";
const podName = `cairn-sandbox-${sandboxId}`;
const cluster = createFakeKubernetesCluster();
const kubeConfig = testKubeConfig();
let workspace: string;

beforeAll(async () => {
  cluster.network.enable();
  workspace = await mkdtemp(join(tmpdir(), "cairn-k8s-processes-"));
});
afterEach(async () => {
  cluster.network.resetHandlers();
  await cluster.takeRequests();
});
afterAll(async () => {
  cluster.network.disable();
  await rm(workspace, { recursive: true, force: true });
});

test("start, output and stop of a background command go through the pod's exec API", async () => {
  const urls: URL[] = [];
  const children: ChildProcess[] = [];
  cluster.network.use(
    execLink.addEventListener("connection", ({ client }) => {
      urls.push(client.url);
      const argv = client.url.searchParams.getAll("command");
      // The wrapper's `cd /workspace` is this test's directory here; the rest runs as asked.
      const [shell, flag, script, ...rest] = argv;
      const local = script === commandWrapper ? 'cd "$WORKSPACE" || exit 126; exec env "$@"' : script;
      const child = spawn(shell, [flag, local, ...rest], {
        env: { PATH: process.env.PATH, WORKSPACE: workspace },
        stdio: ["pipe", "pipe", "pipe"],
      });
      children.push(child);
      child.stdin.on("error", () => {});
      client.addEventListener("message", (event) => {
        const bytes = messageBytes(event.data);
        if (bytes[0] === 0 && bytes.length > 1) child.stdin.write(bytes.subarray(1));
      });
      child.stdout.on("data", (chunk: Buffer) => client.send(channelFrame(1, chunk)));
      child.stderr.on("data", (chunk: Buffer) => client.send(channelFrame(2, chunk)));
      child.on("close", (code, signal) =>
        client.send(statusFrame(code ?? (signal === "SIGTERM" ? 143 : 137))),
      );
    }),
  );
  const runtime = createKubernetesSandboxRuntime({
    namespace: "cairn-sandboxes",
    kubeConfig,
    execWebSocket: interceptableExecWebSocket(kubeConfig),
  });
  const processes = createBackgroundProcesses({
    logger: silentLogger,
    now: () => new Date(),
    limitPerSession: 2,
    outputBytes: 65_536,
  });
  const now = new Date();
  const started = await processes.start(runtime, sandboxId, {
    command: "echo out; echo err >&2; read line; echo got $line; sleep 1000",
    description: null,
    deadlineAt: new Date(now.getTime() + 600_000),
    now,
  });
  expect(started.status).toBe("running");
  expect(urls).toHaveLength(1);
  expect(urls[0].origin + urls[0].pathname).toBe(
    `wss://kubernetes.test/api/v1/namespaces/cairn-sandboxes/pods/${podName}/exec`,
  );
  const argv = urls[0].searchParams.getAll("command");
  expect(argv).toEqual([
    "/bin/sh",
    "-c",
    commandWrapper,
    "cairn-process",
    expect.stringMatching(/^CAIRN_PROCESS=[0-9a-f]{24}$/),
    "/bin/sh",
    "-c",
    "echo out; echo err >&2; read line; echo got $line; sleep 1000",
  ]);
  expect(urls[0].searchParams.get("stdin")).toBe("true");
  const token = argv[4].slice("CAIRN_PROCESS=".length);

  await processes.input(sandboxId, started.processId, new TextEncoder().encode("hello\n"), false);
  let stdout = "";
  let stderr = "";
  let since = 0;
  while (!stdout.includes("got hello\n") || !stderr.includes("err\n")) {
    const page = await processes.output(sandboxId, started.processId, {
      since,
      maxBytes: 1024,
      waitMs: 5_000,
    });
    for (const chunk of page.chunks) {
      const text = new TextDecoder().decode(chunk.bytes);
      if (chunk.stream === "stdout") stdout += text;
      else stderr += text;
    }
    since = page.nextOffset;
  }
  expect([stdout, stderr]).toEqual(["out\ngot hello\n", "err\n"]);

  const stopped = await processes.stop(sandboxId, started.processId);
  expect(stopped.status).toBe("killed");
  // The stop was a second exec: the signal script with TERM and the process's token.
  expect(urls[1].searchParams.getAll("command")).toEqual([
    "/bin/sh",
    "-c",
    signalScript,
    "cairn-signal",
    "TERM",
    token,
  ]);
  // The command's shell really ended (by the signal, not by a closed stream).
  expect(children[0].exitCode !== null || children[0].signalCode !== null).toBe(true);
  processes.close();
  await runtime.close();
});
