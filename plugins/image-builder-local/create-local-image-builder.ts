/**
 * The local image builder (docs/sandboxes.md#images): builds an image's pinned packages into a
 * layer directory `<dataDir>/images/<digest hex>/` (`npm/node_modules`, `python`, `apt`). A build
 * runs the package tools on tenant-chosen packages, whose install scripts are attacker code, so
 * each build gets a sandbox session's isolation (build-isolation.ts): a host uid of its own, its
 * own cgroups, the rlimits, the sessions' seccomp filter, a preallocated disk of its own and a
 * time limit, in a bubblewrap jail (builder-jail.ts) whose network has only loopback. Its one way
 * out is an egress proxy started for the build outside the jail (on a Unix socket bound in) that
 * allows just the package registries. Layers are content-addressed, so equal builds share one
 * directory.
 */
import { chmod, chown, readFile } from "node:fs/promises";
import { join } from "node:path";
import { ServiceError } from "../../core/index.ts";
import type { ImageBuilder, ImageBuildResult, ImageBuildSpec } from "../../core/ports/image-builder.ts";
import type { Logger } from "../../core/ports/logger.ts";
import { startEgressProxy } from "../../lib/egress-proxy/index.ts";
import { ensureHostRoom, type UserIdRange, usedBytes } from "../../lib/sandbox-isolation/index.ts";
import {
  type BuildHost,
  type BuildLimits,
  type BuildRoom,
  createBuildIsolation,
  defaultBuildDiskBytes,
  defaultBuildLimits,
  defaultBuildUserIds,
} from "./build-isolation.ts";
import { buildScript } from "./build-script.ts";
import { runBuilderJail } from "./builder-jail.ts";
import { keepLayer } from "./keep-layer.ts";

export interface LocalImageBuilderSettings {
  dataDir: string;
  /** Hosts the build may reach through the proxy (SVC_IMAGE_REGISTRY_HOSTS). */
  registryHosts: readonly string[];
  allowPrivateEgress: boolean;
  timeoutSeconds: number;
  logger: Logger;
  /**
   * Host uids (and gids) handed out one per build in flight (default 2100000–2165535); none may
   * belong to anything else, the sandboxes' SVC_SANDBOX_UID_RANGE included.
   */
  userIds?: UserIdRange;
  /** Each build's disk, preallocated: its layer, its /tmp and the tools' caches (default 10 GiB). */
  diskBytes?: number;
  /** Memory, processes, CPU and open files per build (default 2 GiB, 256, 1 core, 4096). */
  limits?: Partial<BuildLimits>;
  /** false limits builds by rlimits only (as where cgroup v1 is not writable). */
  useCgroups?: boolean;
  /** The cgroup made under the server's own in each hierarchy (default `cairn-image-builds`). */
  cgroupParent?: string;
  bubblewrapPath?: string;
  /** Ports the proxy lets builds reach (default 443 and 80). */
  proxyPorts?: readonly number[];
  /** A name's addresses for the proxy (default: the system resolver). */
  resolveHost?: (host: string) => Promise<string[]>;
  /** The Debian mirror apt packages come from (default deb.debian.org). */
  debianMirror?: string;
}

const keptLogBytes = 64 * 1024;

async function debianSuite(): Promise<string> {
  const release = await readFile("/etc/os-release", "utf8").catch(() => "");
  return /^VERSION_CODENAME=(\w+)$/m.exec(release)?.[1] ?? "bookworm";
}

/** Why the build failed, from the step it was in and the tool's own error line. */
function failureReason(log: string, exitCode: number | null, timedOut: boolean): string {
  const step = [...log.matchAll(/^== step (\w+)$/gm)].at(-1)?.[1];
  if (timedOut) return `The build ran past its time limit${step ? ` in the ${step} step` : ""}`;
  const errorLine = log
    .split("\n")
    .filter((line) => /^(npm error|npm ERR!|ERROR:|E: )/.test(line))
    .find((line) => !/A complete log of this run|npm error (code|errno)\b/.test(line));
  const what = /No space left on device|\bENOSPC\b/.test(log) ? "ran out of disk" : "failed";
  const where = step ? `The ${step} step ${what}` : `The build ${what}`;
  return `${where} (exit code ${exitCode ?? "none"})${errorLine ? `: ${errorLine.trim()}` : ""}`;
}

export function createLocalImageBuilder(settings: LocalImageBuilderSettings): ImageBuilder {
  const imagesDir = join(settings.dataDir, "images");
  const diskBytes = settings.diskBytes ?? defaultBuildDiskBytes;
  const isolation = createBuildIsolation({
    dataDir: settings.dataDir,
    userIds: settings.userIds ?? defaultBuildUserIds,
    diskBytes,
    limits: {
      ...defaultBuildLimits,
      ...settings.limits,
      // No file larger than the disk; no process running longer than the build may.
      maxFileBytes: diskBytes,
      cpuSeconds: settings.timeoutSeconds,
    },
    useCgroups: settings.useCgroups ?? true,
    cgroupParent: settings.cgroupParent ?? "cairn-image-builds",
    logger: settings.logger,
  });

  /** The proxy's logger: a denial goes into the build's log as well. */
  function proxyLogger(imageId: string, appendLog: (text: string) => void): Logger {
    // Spelled out, not spread: a pino logger keeps its methods on its prototype.
    const logger = settings.logger;
    return {
      debug: (fields, message) => logger.debug({ ...fields, imageId }, message),
      error: (fields, message) => logger.error({ ...fields, imageId }, message),
      child: (bindings) => logger.child(bindings),
      info: (fields, message) => logger.info({ ...fields, imageId }, message),
      warn: (fields, message) => {
        const { host, port, reason } = fields as { host?: string; port?: number; reason?: string };
        appendLog(`egress proxy: denied ${host}:${port} (${reason})\n`);
        logger.warn({ ...fields, imageId }, message);
      },
    };
  }

  async function buildIn(
    host: BuildHost,
    room: BuildRoom,
    spec: ImageBuildSpec,
    signal: AbortSignal,
    appendLog: (text: string) => void,
  ) {
    const socket = join(room.run, "egress.sock");
    const proxy = await startEgressProxy({
      allowedHosts: settings.registryHosts,
      allowPrivateEgress: settings.allowPrivateEgress,
      listen: { path: socket },
      ports: settings.proxyPorts,
      resolveHost: settings.resolveHost,
      logger: proxyLogger(spec.id, appendLog),
    });
    try {
      // Only the build's uid may connect.
      await chown(socket, room.uid, room.uid);
      await chmod(socket, 0o600);
      const script = buildScript({
        npmPackages: spec.npmPackages,
        pythonPackages: spec.pythonPackages,
        aptPackages: spec.aptPackages,
        debianSuite: await debianSuite(),
        debianMirror: settings.debianMirror ?? "deb.debian.org",
      });
      return await runBuilderJail({
        host,
        room,
        script,
        timeoutSeconds: settings.timeoutSeconds,
        signal,
        appendLog,
        bubblewrapPath: settings.bubblewrapPath,
      });
    } finally {
      await proxy.close();
    }
  }

  return {
    async build(spec: ImageBuildSpec, signal: AbortSignal): Promise<ImageBuildResult> {
      let log = "";
      const appendLog = (text: string) => {
        log = (log + text).slice(-keptLogBytes);
      };
      let host: BuildHost;
      try {
        host = await isolation.host();
      } catch (error) {
        // The cause (no `cc`, not root) is the operator's to read, not the tenant's.
        settings.logger.error({ err: error, imageId: spec.id }, "the image builder cannot start");
        return { status: "failed", reason: "Image builds are not available on this server", log };
      }
      let room: BuildRoom | undefined;
      try {
        room = await isolation.prepare(host);
        const { exitCode, timedOut } = await buildIn(host, room, spec, signal, appendLog);
        if (signal.aborted) throw new Error("image build aborted");
        if (exitCode !== 0 || timedOut) {
          return { status: "failed", reason: failureReason(log, exitCode, timedOut), log };
        }
        // No process of the build is left (runBuilderJail): the layer no longer changes.
        await ensureHostRoom(settings.dataDir, await usedBytes(room.disk));
        const { digest, layerPath } = await keepLayer(room.layer, imagesDir);
        appendLog(`layer ${digest}\n`);
        return { status: "completed", digest, registryRef: null, layerPath, log };
      } catch (error) {
        if (error instanceof ServiceError && error.code === "global_capacity_reached") {
          return { status: "failed", reason: error.message, log };
        }
        throw error;
      } finally {
        if (room !== undefined) await isolation.release(host, room);
      }
    },

    close: () => isolation.close(),
  };
}
