/**
 * The sandbox runtime port: what the sandbox services need from a place that runs sandboxes.
 * Plugins implement it (`plugins/sandbox-local` with bubblewrap, `plugins/sandbox-kubernetes`
 * with a pod per sandbox). Runtimes deal in sandbox paths (absolute, as seen inside the
 * sandbox: /workspace/…, /tmp/…, volume mount paths); the file operations of the API are written
 * once in core on top of the primitive file access below.
 */

import type { ServiceError } from "../errors.ts";
import type { SandboxSize } from "../sandboxes/sessions/sizes.ts";

export type { SandboxSize };

export interface SandboxSpec {
  /** The session id (UUID); the runtime's handle for this sandbox. */
  id: string;
  accountId: string;
  size: SandboxSize;
  storageGb: number | null;
  /** Hosts the sandbox may reach; empty means no network at all. */
  egressHosts: string[];
  /** Persistent volumes mounted at create time (sandbox path → runtime-specific volume handle). */
  volumeMounts: Array<{
    volumeId: string;
    mountPath: string;
    /**
     * The volume's size (`size_gb` in bytes). Writes past it must fail inside the sandbox
     * (ENOSPC), never on the host. Absent only from callers that predate volumes.
     */
    sizeBytes?: number;
  }>;
  /**
   * The custom image the sandbox starts from (create's `image_id`, completed), absent for the
   * default image. Local: `layerPath` holds `npm/node_modules`, `python` and `apt` (files of the
   * unpacked .debs) to lay over the base read-only (docs/sandboxes.md#images). Kubernetes:
   * `registryRef` is the pod's image.
   */
  image?: { id: string; base: string; digest: string; layerPath: string | null; registryRef: string | null };
  /**
   * The snapshot the sandbox's disk starts from (a restore, docs/sandboxes.md#snapshots): its files
   * are the snapshot's, byte for byte, owned by the new sandbox's user. Only given to a runtime
   * that has `snapshot`; `handle` is what that call answered.
   */
  fromSnapshot?: { id: string; handle: string | null };
}

/** What a runtime answers for a snapshot it took (`SandboxRuntime.snapshot`). */
export interface SnapshotTaken {
  /** The storage the snapshot takes (local: the image's allocated bytes; Kubernetes: the claim's size). */
  sizeBytes: number;
  /** The runtime's own name for it (Kubernetes: the VolumeSnapshot's name), null when the id is enough. */
  handle: string | null;
}

/** A persistent volume as the runtime provisions it (docs/sandboxes.md#volumes). */
export interface VolumeSpec {
  /** The volume id (UUID). */
  id: string;
  accountId: string;
  sizeBytes: number;
}

export interface SandboxConnectInfo {
  podName: string | null;
  note: string;
}

export interface ExecRequest {
  /** Run by a shell (`/bin/sh -c`) inside the sandbox with cwd /workspace. */
  command: string;
  timeoutSeconds: number;
  /** Aborting it kills the command and everything it started; the call then rejects. */
  signal?: AbortSignal;
  /**
   * Called with each piece of output as the command writes it, uncapped, before the exec ends
   * (for a caller that streams it); the result still carries the capped whole.
   */
  onOutput?: (stream: "stdout" | "stderr", bytes: Uint8Array) => void;
  /**
   * The caller's byte budget per stream: the runtime then keeps, of the whole output however long,
   * the bytes this cut needs (core/sandboxes/exec/kept-output.ts: the head plus one byte, a ring of
   * the tail), counts every byte, and answers them in `output`, instead of its caps.
   */
  budget?: ExecOutputBudget;
}

export interface ExecOutputBudget {
  maxBytes: number;
  keep: "head" | "tail" | "both";
}

/** What a runtime kept of one stream under a budget: its first and its last bytes, and how many there were. */
export interface KeptOutput {
  head: Uint8Array;
  tail: Uint8Array;
  /** Every byte the stream carried; more than head and tail together when bytes between were dropped. */
  totalBytes: number;
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** True when stdout passed 1 MiB or stderr passed 256 KiB and was cut (never under a budget). */
  truncated: boolean;
  durationMs: number;
  /** Under a budget (ExecRequest.budget), each stream as kept; `stdout` and `stderr` then hold those bytes joined. */
  output?: { stdout: KeptOutput; stderr: KeptOutput };
}

/** A long-running process inside a sandbox, as `spawnProcess` starts it. */
export interface ProcessRequest {
  /** argv, run directly (no shell) with cwd /workspace. */
  command: string[];
  /** The process's environment; nothing of the server's or another exec's is passed. */
  env?: Record<string, string>;
  /**
   * `language_server` (the default): stderr is dropped and the language servers' installation is
   * visible. `command`: a tenant's background process (docs/sandboxes.md#processes): an exec's
   * environment (when `env` is absent) and view of the sandbox, with stderr piped.
   */
  kind?: "language_server" | "command";
}

export interface SandboxProcess {
  stdin: WritableStream<Uint8Array>;
  stdout: ReadableStream<Uint8Array>;
  /** The process's stderr, for `kind: "command"`; it must be read (or cancelled) to keep the process from blocking. */
  stderr?: ReadableStream<Uint8Array>;
  /** Settles with the exit code (null when ended by a signal) once the process has ended. */
  exited: Promise<number | null>;
  /** Kills the process (and whatever it started); idempotent. */
  kill(): void;
  /** Asks the process (and whatever it started) to end: SIGTERM. Absent where the runtime cannot; `kill` then. */
  terminate?(): void;
  /**
   * For a language server: settles once the process has ended, with why its command never ran
   * when that is the caller's doing (the sandbox's processes hold every slot:
   * `sandbox_process_limit_reached`), else null.
   */
  startFailure?: Promise<ServiceError | null>;
}

export interface FileStat {
  /** Canonical sandbox path. */
  path: string;
  isDirectory: boolean;
  size: number;
  modifiedAt: Date;
}

/**
 * Primitive file access inside one sandbox. Every method takes a sandbox path that core has
 * already normalised (absolute, no `..`, inside a root); the runtime still refuses, with
 * ServiceError `path_outside_sandbox`, anything whose real location leaves the roots (symlinks,
 * hard links to outside files). Missing files are ServiceError `not_found`.
 */
export interface SandboxFileSystem {
  /** Sandbox roots: /workspace, /tmp and the volume mount paths. */
  roots(): string[];
  stat(path: string): Promise<FileStat | null>;
  /** The file as text (UTF-8, invalid sequences replaced): for grep, which reads what it can. */
  readFile(path: string, maxBytes: number): Promise<string>;
  /** Writes the text as UTF-8; creates parent directories; returns whether the file was newly created. */
  writeFile(path: string, content: string): Promise<{ created: boolean; size: number }>;
  /** The file's exact bytes; a file of more than `maxBytes` is refused (validation_error). */
  readBytes(path: string, maxBytes: number): Promise<Uint8Array>;
  /** Replaces the file with exactly these bytes, as writeFile does with text. */
  writeBytes(path: string, content: Uint8Array): Promise<{ created: boolean; size: number }>;
  /**
   * The file's bytes as a stream, never held whole: `size` is taken when the file is opened and
   * the stream gives exactly that many bytes (it errors if the file shrank meanwhile). A file of
   * more than `maxBytes` is refused before anything is read.
   */
  readStream(path: string, maxBytes: number): Promise<{ size: number; stream: ReadableStream<Uint8Array> }>;
  /**
   * Writes a stream to the file, never holding it whole; the file is replaced only once the
   * stream has ended. More than `maxBytes` is refused with ServiceError `payload_too_large`, and
   * a refused or failed write leaves the old file (or none) in place, with no partial file.
   */
  writeStream(
    path: string,
    content: ReadableStream<Uint8Array>,
    maxBytes: number,
  ): Promise<{ created: boolean; size: number }>;
  /**
   * Direct children of a directory, at most `limit` + 1 of them, in any order (one past the limit
   * says there are more; which ones is the runtime's choice).
   */
  list(path: string, limit: number): Promise<FileStat[]>;
  /** Every file and directory below `path`, recursively, without following symlinks. Bounded by `limit`. */
  walk(path: string, limit: number): Promise<FileStat[]>;
}

/** Why a runtime cannot run sandboxes on this machine, and what fixes it. */
export interface RuntimeUnavailable {
  /** What sandboxes lack, in words: "bubblewrap is not installed (no /usr/bin/bwrap)". */
  lacks: string;
  /** The command that fixes it: "sudo npm run setup". */
  remediation: string;
}

/** The sandbox runtimes there are: SVC_SANDBOX_RUNTIME picks one, and a session records which ran it. */
export const sandboxRuntimeNames = ["local", "kubernetes"] as const;
export type SandboxRuntimeName = (typeof sandboxRuntimeNames)[number];

export interface SandboxRuntime {
  readonly name: SandboxRuntimeName;
  /**
   * Null when the runtime can run sandboxes here, else why not (settled once, at start). A runtime
   * without it always can. While unavailable, every sandbox operation is 503 service_unavailable.
   */
  unavailable?(): Promise<RuntimeUnavailable | null>;
  create(spec: SandboxSpec): Promise<SandboxConnectInfo>;
  /** Idempotent: destroying an unknown or already destroyed sandbox succeeds. */
  destroy(id: string): Promise<void>;
  /** Ids of the sandboxes the runtime currently holds (for re-adoption and clean-up at start). */
  list(): Promise<string[]>;
  /**
   * True when only this server creates the sandboxes `list` shows (the local runtime: one data
   * directory, one server), so at start a session from before it whose sandbox is not listed is
   * certainly gone; absent when replicas share the runtime (Kubernetes), where a young session
   * may be another replica's sandbox still starting.
   */
  readonly createsAlone?: boolean;
  exec(id: string, request: ExecRequest): Promise<ExecResult>;
  /**
   * Learns what `files(id)` needs about a sandbox this runtime did not create or list (a
   * replica's sandbox made after this one started: its volume mount paths); called before
   * `files`. Absent where the runtime always knows.
   */
  loadSandbox?(id: string): Promise<void>;
  files(id: string): SandboxFileSystem;
  /**
   * Starts a long-running process in the sandbox with piped stdio and the same isolation as an
   * exec, but no timeout; it dies with the sandbox. A runtime without it offers no language
   * servers (docs/sandboxes.md#language-servers).
   */
  spawnProcess?(id: string, request: ProcessRequest): Promise<SandboxProcess>;
  /**
   * Provisions storage for a new volume and returns the runtime's claim name (Kubernetes: a
   * PersistentVolumeClaim). A runtime without it keeps volumes it creates on first mount.
   */
  createVolume?(spec: VolumeSpec): Promise<{ pvcName: string | null }>;
  /** Removes a volume's storage and data; idempotent. Called once no active sandbox mounts it. */
  deleteVolume?(id: string): Promise<void>;
  /** Bytes the volume's data takes, or null when the runtime cannot tell. */
  volumeUsedBytes?(id: string): Promise<number | null>;
  /**
   * Takes an immutable, consistent copy of the sandbox's disk (/workspace and /tmp) under
   * `snapshotId`: no write of the sandbox lands half in it (local: the file system is frozen while
   * the image is copied). A runtime without it answers `snapshots_not_supported`, and so does
   * restoring (`SandboxSpec.fromSnapshot`).
   */
  snapshot?(sandboxId: string, snapshotId: string): Promise<SnapshotTaken>;
  /** Removes a snapshot's storage; idempotent. `handle` is what `snapshot` answered. */
  deleteSnapshot?(snapshotId: string, handle: string | null): Promise<void>;
  close(): Promise<void>;
}
