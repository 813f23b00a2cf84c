/**
 * A long-running process in a sandbox pod (a language server) through the Kubernetes exec API:
 * one websocket whose stdin, stdout and stderr channels stay open while the process runs. The
 * argv runs exactly, in /workspace, with exactly the given environment (`env -i`). `kill()`
 * closes the websocket, which closes the process's stdin (a language server exits on it); the
 * pod's deletion ends whatever is left.
 */
import { PassThrough, Readable, Writable } from "node:stream";
import type { KubeConfig, V1Status } from "@kubernetes/client-node";
import { Exec } from "@kubernetes/client-node";
import type { ProcessRequest, SandboxProcess } from "../../core/ports/sandbox-runtime.ts";
import { containerName } from "./manifests.ts";
import { type ExecWebSocket, exitCodeFromStatus } from "./pod-exec.ts";

/** Runs `env -i NAME=value… argv…` from /workspace; $@ keeps every argument as it is. */
export const processWrapper = 'cd /workspace || exit 126; exec env -i "$@"';
/**
 * A tenant's background command (`kind: "command"`) keeps the container's environment, as an
 * exec does, plus `CAIRN_PROCESS=<token>`, which its children inherit: signalling every process
 * whose environment holds the token is how stop reaches it and what it started.
 */
export const commandWrapper = 'cd /workspace || exit 126; exec env "$@"';

/** A script for `sh -c` that sends signal `$1` to every process whose environment holds `CAIRN_PROCESS=$2`. */
export const signalScript =
  'for p in /proc/[0-9]*; do if tr "\\0" "\\n" < "$p/environ" 2>/dev/null | grep -qx "CAIRN_PROCESS=$2"; then kill "-$1" "$(basename "$p")" 2>/dev/null; fi; done; exit 0';

export function processArgv(request: ProcessRequest, token?: string): string[] {
  const environment = Object.entries(request.env ?? {}).map(([name, value]) => `${name}=${value}`);
  if (request.kind === "command") {
    return [
      "/bin/sh",
      "-c",
      commandWrapper,
      "cairn-process",
      ...environment,
      `CAIRN_PROCESS=${token}`,
      ...request.command,
    ];
  }
  return ["/bin/sh", "-c", processWrapper, "cairn-process", ...environment, ...request.command];
}

export type PodProcessStarter = (podName: string, request: ProcessRequest) => Promise<SandboxProcess>;

/** Sends a signal to a background command's processes in the pod (another exec). */
export type PodSignaller = (podName: string, signal: "TERM" | "KILL", token: string) => Promise<void>;

export function createPodProcessStarter(options: {
  kubeConfig: KubeConfig;
  namespace: string;
  webSocket?: ExecWebSocket;
  signal?: PodSignaller;
}): PodProcessStarter {
  const exec = new Exec(options.kubeConfig, options.webSocket);
  return async (podName, request) => {
    const command = request.kind === "command";
    const token = command
      ? Array.from(crypto.getRandomValues(new Uint8Array(12)), (byte) =>
          byte.toString(16).padStart(2, "0"),
        ).join("")
      : undefined;
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    // A language server's stderr is read and dropped, so the process never blocks on it.
    const stderr = command
      ? new PassThrough()
      : new Writable({ write: (_chunk, _encoding, callback) => callback() });
    stdout.on("error", () => {});
    stderr.on("error", () => {});
    let settle: (code: number | null) => void = () => {};
    const exited = new Promise<number | null>((resolve) => {
      let settled = false;
      settle = (code) => {
        if (settled) return;
        settled = true;
        stdout.end();
        if (stderr instanceof PassThrough) stderr.end();
        resolve(code);
      };
    });
    const socket = await exec.exec(
      options.namespace,
      podName,
      containerName,
      processArgv(request, token),
      stdout,
      stderr,
      stdin,
      false,
      (status: V1Status) => settle(exitCodeFromStatus(status)),
    );
    // A stream that ends without a status (a closed socket, a deleted pod) ends the process too.
    socket.onclose = () => settle(null);
    if (socket.readyState >= 2) settle(null);
    const signalCommand = (signal: "TERM" | "KILL") => {
      if (token !== undefined && options.signal) void options.signal(podName, signal, token).catch(() => {});
    };
    return {
      stdin: Writable.toWeb(stdin) as WritableStream<Uint8Array>,
      stdout: Readable.toWeb(stdout) as ReadableStream<Uint8Array>,
      stderr:
        stderr instanceof PassThrough ? (Readable.toWeb(stderr) as ReadableStream<Uint8Array>) : undefined,
      exited,
      kill() {
        // A background command outlives its stream unless signalled; a language server ends at EOF.
        signalCommand("KILL");
        socket.close();
        settle(null);
      },
      terminate: command ? () => signalCommand("TERM") : undefined,
    };
  };
}
