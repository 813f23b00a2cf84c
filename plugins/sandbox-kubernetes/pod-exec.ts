/**
 * Runs one command in a sandbox pod through the Kubernetes exec API (a websocket opened by the
 * client library's `Exec`) and collects its output within byte caps and a client-side deadline.
 * The exit code comes from the status channel; a stream that closes without one is a failure.
 */

import { PassThrough, Writable } from "node:stream";
import type { KubeConfig, V1Status } from "@kubernetes/client-node";
import { Exec } from "@kubernetes/client-node";
import { createOutputKeeper, joinKeptOutput, type OutputKeeper } from "../../core/index.ts";
import type { ExecOutputBudget, KeptOutput } from "../../core/ports/sandbox-runtime.ts";
import { containerName } from "./manifests.ts";

/** How `Exec` opens its websocket; the library's own handler (the `ws` package) by default. */
export type ExecWebSocket = ConstructorParameters<typeof Exec>[1];

export interface PodCommand {
  podName: string;
  argv: string[];
  /** Bytes written to the command's stdin. The stream is never closed: commands read a known length. */
  stdin?: Uint8Array;
  stdoutLimit: number;
  stderrLimit: number;
  /** Client-side deadline; when it passes the stream is closed and the result says timedOut. */
  deadlineMs: number;
  signal?: AbortSignal;
  /** Each chunk of output as it arrives, before the caps. */
  onOutput?: (stream: "stdout" | "stderr", bytes: Uint8Array) => void;
  /** What to keep of each stream in place of the limits (ExecRequest.budget). */
  budget?: ExecOutputBudget;
}

export interface PodCommandResult {
  exitCode: number;
  stdout: Buffer;
  stderr: Buffer;
  truncated: boolean;
  timedOut: boolean;
  /** Each stream as kept, when the command had a budget. */
  output?: { stdout: KeptOutput; stderr: KeptOutput };
}

export type PodCommandRunner = (command: PodCommand) => Promise<PodCommandResult>;

/** Exit code reported when the client-side deadline ends a command, as `timeout` does. */
export const deadlineExitCode = 124;

// The API server forwards stdin frames as they come; small frames keep its buffers small.
const stdinChunkBytes = 64 * 1024;

/**
 * Keeps the first `limit` bytes written to it and notes whether anything past them was dropped;
 * under a budget, what the budget's cut needs of everything written (core's output keeper).
 */
class CappedSink extends Writable {
  private readonly keeper: OutputKeeper;
  private readonly onChunk: ((chunk: Buffer) => void) | undefined;

  constructor(limit: number, budget: ExecOutputBudget | undefined, onChunk?: (chunk: Buffer) => void) {
    super();
    this.keeper = createOutputKeeper(limit, budget);
    this.onChunk = onChunk;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.onChunk?.(chunk);
    this.keeper.add(chunk);
    callback();
  }

  get cut(): boolean {
    return this.keeper.truncated();
  }

  kept(): KeptOutput {
    return this.keeper.kept();
  }
}

/** A Buffer over the same bytes, no copy (a file read's output is up to 8 MiB). */
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** 0 for Success, the code of a NonZeroExitCode failure, null for any other status. */
export function exitCodeFromStatus(status: V1Status): number | null {
  if (status.status === "Success") return 0;
  if (status.reason !== "NonZeroExitCode") return null;
  const cause = status.details?.causes?.find((item) => item.reason === "ExitCode");
  const code = Number.parseInt(cause?.message ?? "", 10);
  return Number.isInteger(code) ? code : null;
}

export class PodCommandError extends Error {
  readonly status: V1Status | null;
  constructor(message: string, status: V1Status | null = null) {
    super(message);
    this.name = "PodCommandError";
    this.status = status;
  }
}

export function createPodCommandRunner(options: {
  kubeConfig: KubeConfig;
  namespace: string;
  webSocket?: ExecWebSocket;
}): PodCommandRunner {
  const exec = new Exec(options.kubeConfig, options.webSocket);

  return (command) =>
    new Promise<PodCommandResult>((resolve, reject) => {
      const { onOutput } = command;
      const { budget } = command;
      const stdout = new CappedSink(
        command.stdoutLimit,
        budget,
        onOutput && ((chunk) => onOutput("stdout", chunk)),
      );
      const stderr = new CappedSink(
        command.stderrLimit,
        budget,
        onOutput && ((chunk) => onOutput("stderr", chunk)),
      );
      const stdin = command.stdin ? new PassThrough() : null;
      let socket: { close(): void } | null = null;
      let settled = false;

      const result = (exitCode: number, timedOut: boolean): PodCommandResult => {
        const kept = { stdout: stdout.kept(), stderr: stderr.kept() };
        return {
          exitCode,
          stdout: asBuffer(joinKeptOutput(kept.stdout)),
          stderr: asBuffer(joinKeptOutput(kept.stderr)),
          truncated: stdout.cut || stderr.cut,
          timedOut,
          ...(budget && { output: kept }),
        };
      };
      const onAbort = () => finish(() => reject(new PodCommandError("exec cancelled")));
      const finish = (settle: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        command.signal?.removeEventListener("abort", onAbort);
        socket?.close();
        settle();
      };
      const timer = setTimeout(
        () => finish(() => resolve(result(deadlineExitCode, true))),
        command.deadlineMs,
      );
      if (command.signal?.aborted) return onAbort();
      command.signal?.addEventListener("abort", onAbort);

      const onStatus = (status: V1Status) => {
        const exitCode = exitCodeFromStatus(status);
        if (exitCode === null) finish(() => reject(new PodCommandError("exec failed", status)));
        else finish(() => resolve(result(exitCode, false)));
      };
      exec
        .exec(
          options.namespace,
          command.podName,
          containerName,
          command.argv,
          stdout,
          stderr,
          stdin,
          false,
          onStatus,
        )
        .then((opened) => {
          socket = opened;
          if (settled) return opened.close();
          const closedEarly = () =>
            finish(() => reject(new PodCommandError("exec stream closed without a status")));
          opened.onclose = closedEarly;
          // The socket may have closed between opening and this callback (CLOSING = 2, CLOSED = 3).
          if (opened.readyState >= 2) return closedEarly();
          if (stdin && command.stdin) {
            for (let offset = 0; offset < command.stdin.length; offset += stdinChunkBytes) {
              stdin.write(Buffer.from(command.stdin.subarray(offset, offset + stdinChunkBytes)));
            }
          }
        })
        .catch((error: unknown) => finish(() => reject(error)));
    });
}
