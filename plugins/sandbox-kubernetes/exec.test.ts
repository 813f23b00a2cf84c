import { HttpResponse, http } from "msw";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { ServiceError } from "../../core/index.ts";
import {
  apiServer,
  bearerToken,
  channelFrame,
  createFakeKubernetesCluster,
  execLink,
  interceptableExecWebSocket,
  messageBytes,
  statusFrame,
  testKubeConfig,
} from "../../test/doubles/fake-kubernetes-cluster.ts";
import { createPodCommandRunner } from "./pod-exec.ts";
import { createKubernetesSandboxRuntime } from "./runtime.ts";

const namespace = "cairn-sandboxes";
const sandboxId = "0b9c6a52-2f4e-4d8a-9a51-6c1d2e3f4a5b";
const podName = `cairn-sandbox-${sandboxId}`;
const execWrapper =
  'cd /workspace || exit 126; exec env CAIRN_PROCESS="$3" timeout -k 2 "$1" /bin/sh -c "$2"';
const execToken = expect.stringMatching(/^[0-9a-f]{24}$/);
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

/** Answers every exec with the given frames, recording the exec URLs. */
function respondWith(urls: URL[], frames: Array<Uint8Array<ArrayBuffer>>) {
  cluster.network.use(
    execLink.addEventListener("connection", ({ client }) => {
      urls.push(client.url);
      for (const frame of frames) client.send(frame);
    }),
  );
}

describe("exec", () => {
  test("opens the exec API of the sandbox pod with the shell, cwd and timeout wrapper", async () => {
    const urls: URL[] = [];
    respondWith(urls, [channelFrame(1, "hello\n"), channelFrame(2, "warning\n"), statusFrame(0)]);

    const result = await runtime().exec(sandboxId, { command: "echo hello && ls 'a b'", timeoutSeconds: 30 });

    expect(result).toEqual({
      exitCode: 0,
      stdout: "hello\n",
      stderr: "warning\n",
      timedOut: false,
      truncated: false,
      durationMs: expect.any(Number),
    });
    expect(urls).toHaveLength(1);
    expect(urls[0].origin + urls[0].pathname).toBe(
      `wss://kubernetes.test/api/v1/namespaces/${namespace}/pods/${podName}/exec`,
    );
    expect([...urls[0].searchParams]).toEqual([
      ["stdout", "true"],
      ["stderr", "true"],
      ["stdin", "false"],
      ["tty", "false"],
      ["command", "/bin/sh"],
      ["command", "-c"],
      ["command", execWrapper],
      ["command", "cairn-exec"],
      ["command", "30"],
      ["command", "echo hello && ls 'a b'"],
      ["command", execToken],
      ["container", "sandbox"],
    ]);
  });

  test("reports the exit code of the status channel", async () => {
    respondWith([], [channelFrame(2, "no such file\n"), statusFrame(3)]);
    const result = await runtime().exec(sandboxId, { command: "ls missing", timeoutSeconds: 5 });
    expect(result).toMatchObject({ exitCode: 3, stdout: "", stderr: "no such file\n", timedOut: false });
  });

  test("an early exit 124 is the command's own, not a timeout", async () => {
    respondWith([], [statusFrame(124)]);
    const result = await runtime().exec(sandboxId, { command: "exit 124", timeoutSeconds: 30 });
    expect(result).toMatchObject({ exitCode: 124, timedOut: false });
  });

  test("caps stdout at 1 MiB and stderr at 256 KiB and says it cut them", async () => {
    const bigOut = new Uint8Array(1024 * 1024 + 10).fill(0x61);
    const bigErr = new Uint8Array(256 * 1024 + 1).fill(0x62);
    respondWith([], [channelFrame(1, bigOut), channelFrame(2, bigErr), statusFrame(0)]);
    const result = await runtime().exec(sandboxId, { command: "yes", timeoutSeconds: 5 });
    expect(result.truncated).toBe(true);
    expect(result.stdout).toBe("a".repeat(1024 * 1024));
    expect(result.stderr).toBe("b".repeat(256 * 1024));
  });

  test("under a budget keeps the true end of output far past the caps, counting every byte", async () => {
    // Regression: the runtime kept the first MiB, so a budget's tail was the end of that MiB.
    const frames = Array.from({ length: 3 }, (_, index) =>
      channelFrame(1, new Uint8Array(1024 * 1024).fill(0x61 + index)),
    );
    respondWith([], [...frames, channelFrame(1, "the end\n"), channelFrame(2, "oops\n"), statusFrame(0)]);
    const result = await runtime().exec(sandboxId, {
      command: "yes",
      timeoutSeconds: 5,
      budget: { maxBytes: 10, keep: "tail" },
    });
    const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
    expect(text(result.output?.stdout.tail)).toBe("ccthe end\n");
    expect(result.output?.stdout.tail).toHaveLength(10);
    expect(result.output?.stdout.totalBytes).toBe(3 * 1024 * 1024 + 8);
    expect(text(result.output?.stderr.tail)).toBe("oops\n");
    expect(result.truncated).toBe(false);
  });

  test("output exactly at the caps is not truncated", async () => {
    respondWith(
      [],
      [
        channelFrame(1, new Uint8Array(1024 * 1024).fill(0x61)),
        channelFrame(2, new Uint8Array(256 * 1024).fill(0x62)),
        statusFrame(0),
      ],
    );
    const result = await runtime().exec(sandboxId, { command: "yes", timeoutSeconds: 5 });
    expect(result.truncated).toBe(false);
    expect(result.stdout).toHaveLength(1024 * 1024);
  });

  test("a failure status that is not an exit code is sandbox_operation_failed, cause kept but not shown", async () => {
    const internal = {
      status: "Failure",
      reason: "InternalError",
      message: "secret internals: runc exploded",
    };
    respondWith([], [channelFrame(3, JSON.stringify(internal))]);
    const error = await runtime()
      .exec(sandboxId, { command: "true", timeoutSeconds: 5 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ code: "sandbox_operation_failed" });
    expect((error as ServiceError).message).not.toContain("runc");
    expect(JSON.stringify((error as ServiceError).toBody())).not.toContain("runc");
    expect((error as ServiceError).cause).toBeDefined();
  });

  test("a stream that closes without a status is sandbox_operation_failed", async () => {
    cluster.network.use(
      execLink.addEventListener("connection", ({ client }) => {
        // After the client has seen the socket open, as a real API server would.
        setTimeout(() => {
          client.send(channelFrame(1, "partial"));
          client.close();
        }, 10);
      }),
    );
    await expect(runtime().exec(sandboxId, { command: "true", timeoutSeconds: 5 })).rejects.toMatchObject({
      code: "sandbox_operation_failed",
    });
  });

  test("an aborted request closes the socket and fails as cancelled", async () => {
    const controller = new AbortController();
    let closed = false;
    cluster.network.use(
      execLink.addEventListener("connection", ({ client }) => {
        client.addEventListener("close", () => {
          closed = true;
        });
        client.send(channelFrame(1, "started"));
        setTimeout(() => controller.abort(), 10);
      }),
    );
    await expect(
      runtime().exec(sandboxId, { command: "sleep 60", timeoutSeconds: 90, signal: controller.signal }),
    ).rejects.toMatchObject({ code: "sandbox_operation_failed", message: "The command was cancelled" });
    await expect.poll(() => closed).toBe(true);
  });
});

describe("the exec transport", () => {
  const run = createPodCommandRunner({
    kubeConfig,
    namespace,
    webSocket: interceptableExecWebSocket(kubeConfig),
  });

  test("the client-side deadline ends a silent command as timed out with what it printed", async () => {
    respondWith([], [channelFrame(1, "so far")]);
    const result = await run({
      podName,
      argv: ["sleep", "600"],
      stdoutLimit: 100,
      stderrLimit: 100,
      deadlineMs: 50,
    });
    expect(result).toMatchObject({ exitCode: 124, timedOut: true, truncated: false });
    expect(result.stdout.toString()).toBe("so far");
  });

  test("stdin is sent on channel 0 in chunks and never closed", async () => {
    const received: number[][] = [];
    const input = new Uint8Array(150 * 1024).map((_, index) => index % 251);
    cluster.network.use(
      execLink.addEventListener("connection", ({ client }) => {
        let total = 0;
        client.addEventListener("message", (event) => {
          const bytes = messageBytes(event.data);
          received.push([bytes[0], bytes.length - 1]);
          total += bytes.length - 1;
          if (total === input.length) client.send(statusFrame(0));
        });
      }),
    );
    const result = await run({
      podName,
      argv: ["head", "-c", String(input.length)],
      stdin: input,
      stdoutLimit: 10,
      stderrLimit: 10,
      deadlineMs: 10_000,
    });
    expect(result.exitCode).toBe(0);
    expect(received).toEqual([
      [0, 64 * 1024],
      [0, 64 * 1024],
      [0, 150 * 1024 - 128 * 1024],
    ]);
  });
});

describe("the default websocket (the ws package)", () => {
  test("upgrades at the exec URL with the bearer token and the channel protocols", async () => {
    const controller = new AbortController();
    const connections: string[][] = [];
    cluster.network.use(
      execLink.addEventListener("connection", ({ info }) => {
        connections.push(info.protocols as string[]);
        controller.abort();
      }),
    );
    const defaultRuntime = createKubernetesSandboxRuntime({ namespace, kubeConfig });
    await expect(
      defaultRuntime.exec(sandboxId, { command: "id", timeoutSeconds: 5, signal: controller.signal }),
    ).rejects.toMatchObject({ code: "sandbox_operation_failed" });

    const execs = (await cluster.takeRequests()).filter((request) => request.path.endsWith("/exec"));
    const [upgrade] = execs;
    expect(upgrade.method).toBe("GET");
    expect(upgrade.path).toBe(`/api/v1/namespaces/${namespace}/pods/${podName}/exec`);
    expect(upgrade.headers.get("authorization")).toBe(`Bearer ${bearerToken}`);
    expect(upgrade.headers.get("upgrade")).toBe("websocket");
    expect(upgrade.query.command).toEqual(["/bin/sh", "-c", execWrapper, "cairn-exec", "5", "id", execToken]);
    expect(connections[0]).toContain("v5.channel.k8s.io");
    // Cancelled: a second exec kills every process holding the command's token (closing the
    // stream alone would leave it running until its timeout).
    const token = (upgrade.query.command as string[]).at(-1);
    for (let attempt = 0; attempt < 100 && execs.length < 2; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      execs.push(...(await cluster.takeRequests()).filter((request) => request.path.endsWith("/exec")));
    }
    expect((execs[1].query.command as string[]).slice(3)).toEqual(["cairn-signal", "KILL", token]);
  });

  test("a pod the API does not know (404 on the upgrade) is sandbox_operation_failed", async () => {
    cluster.network.use(
      http.get(`${apiServer}/api/v1/namespaces/${namespace}/pods/:pod/exec`, () =>
        HttpResponse.json(
          { kind: "Status", status: "Failure", reason: "NotFound", code: 404 },
          { status: 404 },
        ),
      ),
    );
    const defaultRuntime = createKubernetesSandboxRuntime({ namespace, kubeConfig });
    await expect(defaultRuntime.exec(sandboxId, { command: "id", timeoutSeconds: 5 })).rejects.toMatchObject({
      code: "sandbox_operation_failed",
      message: "Could not run the command in the sandbox",
    });
  });
});
