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

export function processArgv(request: ProcessRequest): string[] {
  const environment = Object.entries(request.env ?? {}).map(([name, value]) => `${name}=${value}`);
  return ["/bin/sh", "-c", processWrapper, "cairn-process", ...environment, ...request.command];
}

export type PodProcessStarter = (podName: string, request: ProcessRequest) => Promise<SandboxProcess>;

export function createPodProcessStarter(options: {
  kubeConfig: KubeConfig;
  namespace: string;
  webSocket?: ExecWebSocket;
}): PodProcessStarter {
  const exec = new Exec(options.kubeConfig, options.webSocket);
  return async (podName, request) => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    // The port has no stderr: read and dropped, so the process never blocks on it.
    const stderr = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    stdout.on("error", () => {});
    let settle: (code: number | null) => void = () => {};
    const exited = new Promise<number | null>((resolve) => {
      let settled = false;
      settle = (code) => {
        if (settled) return;
        settled = true;
        stdout.end();
        resolve(code);
      };
    });
    const socket = await exec.exec(
      options.namespace,
      podName,
      containerName,
      processArgv(request),
      stdout,
      stderr,
      stdin,
      false,
      (status: V1Status) => settle(exitCodeFromStatus(status)),
    );
    // A stream that ends without a status (a closed socket, a deleted pod) ends the process too.
    socket.onclose = () => settle(null);
    if (socket.readyState >= 2) settle(null);
    return {
      stdin: Writable.toWeb(stdin) as WritableStream<Uint8Array>,
      stdout: Readable.toWeb(stdout) as ReadableStream<Uint8Array>,
      exited,
      kill() {
        socket.close();
        settle(null);
      },
    };
  };
}
