/**
 * Test support: a fake Kubernetes API at https://kubernetes.test built from msw handlers.
 *
 * Two facts shape it. @kubernetes/client-node 2.x sends requests with the `fetch` of the npm
 * `undici` package, which `setupServer` (global fetch, http.ClientRequest) does not see, so the
 * network uses msw's socket-level HttpRequestInterceptor. And msw answers the upgrade of the `ws`
 * package's exec socket but does not carry its frames, so exec tests give the library's own
 * WebSocketHandler a factory that opens the global WebSocket, which msw's `ws` links fully mock.
 */

import { spawn } from "node:child_process";
import { KubeConfig } from "@kubernetes/client-node";
import { WebSocketHandler } from "@kubernetes/client-node/dist/web-socket-handler.js";
import { HttpRequestInterceptor } from "@mswjs/interceptors/http";
import { WebSocketInterceptor } from "@mswjs/interceptors/WebSocket";
import { ws } from "msw";
import { defineNetwork, InterceptorSource } from "msw/experimental";
import type { ExecWebSocket } from "../../plugins/sandbox-kubernetes/pod-exec.ts";

export const apiServer = "https://kubernetes.test";
export const bearerToken = "test-token";

export function testKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: "test", server: apiServer, skipTLSVerify: true }],
    users: [{ name: "cairn", token: bearerToken }],
    contexts: [{ name: "test", cluster: "test", user: "cairn" }],
    currentContext: "test",
  });
  return kubeConfig;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Headers;
  body: unknown;
}

function queryObject(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    query[key] = values.length === 1 ? values[0] : values;
  }
  return query;
}

/** The msw network plus a log of every request it saw, bodies parsed as JSON. */
export function createFakeKubernetesCluster() {
  const network = defineNetwork({
    sources: [
      new InterceptorSource({ interceptors: [new HttpRequestInterceptor(), new WebSocketInterceptor()] }),
    ],
    onUnhandledFrame: "error",
    context: { quiet: true },
  });
  let pending: Array<Promise<RecordedRequest>> = [];
  network.events.on("request:start", ({ request }) => {
    const copy = request.clone();
    pending.push(
      copy.text().then((text: string) => {
        const url = new URL(copy.url);
        return {
          method: copy.method,
          path: url.pathname,
          query: queryObject(url),
          headers: copy.headers,
          body: text === "" ? null : JSON.parse(text),
        };
      }),
    );
  });
  return {
    network,
    /** The requests seen since the last call, in order. */
    async takeRequests(): Promise<RecordedRequest[]> {
      const taken = pending;
      pending = [];
      return Promise.all(taken);
    },
  };
}

/** Hands the library's WebSocketHandler a global WebSocket, adapted to the `ws` interface it uses. */
export function interceptableExecWebSocket(kubeConfig: KubeConfig): ExecWebSocket {
  type Factory = NonNullable<ConstructorParameters<typeof WebSocketHandler>[1]>;
  const factory = (uri: string, protocols: string[]) => {
    const socket = new WebSocket(uri, protocols);
    socket.binaryType = "arraybuffer";
    const adapter = {
      get protocol() {
        return socket.protocol;
      },
      get readyState() {
        return socket.readyState;
      },
      set onopen(listener: () => void) {
        socket.onopen = listener;
      },
      set onerror(listener: (event: Event) => void) {
        socket.onerror = listener;
      },
      set onclose(listener: () => void) {
        socket.onclose = listener;
      },
      set onmessage(listener: (event: { data: string | Buffer }) => void) {
        socket.onmessage = (event) =>
          listener({
            data: typeof event.data === "string" ? event.data : Buffer.from(event.data as ArrayBuffer),
          });
      },
      send: (data: Uint8Array) => socket.send(data),
      close: () => socket.close(),
    };
    return adapter as unknown as ReturnType<Factory>;
  };
  return new WebSocketHandler(kubeConfig, factory);
}

export const execLink = ws.link(`wss://kubernetes.test/api/v1/namespaces/:namespace/pods/:pod/exec`);

export function channelFrame(channel: number, data: string | Uint8Array): Uint8Array<ArrayBuffer> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const frame = new Uint8Array(bytes.length + 1);
  frame[0] = channel;
  frame.set(bytes, 1);
  return frame;
}

/** The status frame the kubelet sends when a command ends. */
export function statusFrame(exitCode: number): Uint8Array<ArrayBuffer> {
  const status =
    exitCode === 0
      ? { metadata: {}, status: "Success" }
      : {
          metadata: {},
          status: "Failure",
          message: `command terminated with non-zero exit code: exit status ${exitCode}`,
          reason: "NonZeroExitCode",
          details: { causes: [{ reason: "ExitCode", message: String(exitCode) }] },
        };
  return channelFrame(3, JSON.stringify(status));
}

export function messageBytes(data: unknown): Uint8Array {
  if (typeof data === "string") return new TextEncoder().encode(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new Error(`unexpected websocket message ${Object.prototype.toString.call(data)}`);
}

/**
 * An exec handler that really runs the requested argv on this machine (Debian, GNU coreutils
 * and findutils like the default image) and speaks the channel protocol back, so the file
 * script is tested for real. Each connection's argv is pushed to `commands`.
 */
export function localExecHandler(commands: string[][]) {
  return execLink.addEventListener("connection", ({ client }) => {
    const argv = client.url.searchParams.getAll("command");
    commands.push(argv);
    const wantsStdin = client.url.searchParams.get("stdin") === "true";
    const child = spawn(argv[0], argv.slice(1), { stdio: [wantsStdin ? "pipe" : "ignore", "pipe", "pipe"] });
    child.stdin?.on("error", () => {});
    client.addEventListener("message", (event) => {
      const bytes = messageBytes(event.data);
      if (bytes[0] === 0) child.stdin?.write(bytes.subarray(1));
    });
    child.stdout?.on("data", (chunk: Buffer) => client.send(channelFrame(1, chunk)));
    child.stderr?.on("data", (chunk: Buffer) => client.send(channelFrame(2, chunk)));
    child.on("close", (code) => client.send(statusFrame(code ?? 137)));
  });
}
