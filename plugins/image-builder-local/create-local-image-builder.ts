/**
 * The local image builder (docs/sandboxes.md#images): builds an image's pinned packages into a
 * layer directory `<dataDir>/images/<digest hex>/` (`npm/node_modules`, `python`, `apt`). Each
 * build runs in its own bubblewrap jail as an unprivileged user, with its own user, pid, mount,
 * network, ipc and uts namespaces: the jail's network has only loopback, and its one way out is
 * an egress proxy started for the build outside the jail (on a Unix socket bound in) that allows
 * just the package registries. Layers are content-addressed, so equal builds share one directory.
 */
import { chmod, chown, cp, lstat, mkdir, mkdtemp, readFile, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ImageBuilder, ImageBuildResult, ImageBuildSpec } from "../../core/ports/image-builder.ts";
import type { Logger } from "../../core/ports/logger.ts";
import { startEgressProxy } from "../egress-proxy/index.ts";
import { buildScript } from "./build-script.ts";
import { runBuilderJail } from "./builder-jail.ts";
import { layerDigest } from "./layer-digest.ts";

export interface LocalImageBuilderSettings {
  dataDir: string;
  /** Hosts the build may reach through the proxy (SVC_IMAGE_REGISTRY_HOSTS). */
  registryHosts: readonly string[];
  allowPrivateEgress: boolean;
  timeoutSeconds: number;
  logger: Logger;
  /** The unprivileged host uid and gid builds run as (default 65534, nobody). */
  builderUserId?: number;
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
  const where = step ? `The ${step} step failed` : "The build failed";
  return `${where} (exit code ${exitCode ?? "none"})${errorLine ? `: ${errorLine.trim()}` : ""}`;
}

export function createLocalImageBuilder(settings: LocalImageBuilderSettings): ImageBuilder {
  const userId = settings.builderUserId ?? 65534;
  const imagesDir = join(settings.dataDir, "images");

  /** Moves a finished layer to its content address (a layer already there is the same content). */
  async function keepLayer(layer: string, digest: string, imageId: string): Promise<string> {
    const target = join(imagesDir, digest.slice("sha256:".length));
    await mkdir(imagesDir, { recursive: true, mode: 0o755 });
    if (await lstat(target).catch(() => null)) return target;
    const partial = `${target}.partial-${imageId}`;
    // Copied, not moved: the copy belongs to the server's user, not the builder's.
    await cp(layer, partial, { recursive: true, verbatimSymlinks: true });
    await rename(partial, target).catch(async (error) => {
      await rm(partial, { recursive: true, force: true });
      if (!(await lstat(target).catch(() => null))) throw error;
    });
    return target;
  }

  return {
    async build(spec: ImageBuildSpec, signal: AbortSignal): Promise<ImageBuildResult> {
      let log = "";
      const appendLog = (text: string) => {
        log = (log + text).slice(-keptLogBytes);
      };
      const work = await mkdtemp(join(tmpdir(), "cairn-image-build-"));
      // Spelled out, not spread: a pino logger keeps its methods on its prototype.
      const logger = settings.logger;
      const proxyLogger: Logger = {
        debug: (fields, message) => logger.debug({ ...fields, imageId: spec.id }, message),
        error: (fields, message) => logger.error({ ...fields, imageId: spec.id }, message),
        child: (bindings) => logger.child(bindings),
        info: (fields, message) => logger.info({ ...fields, imageId: spec.id }, message),
        warn: (fields, message) => {
          const { host, port, reason } = fields as { host?: string; port?: number; reason?: string };
          appendLog(`egress proxy: denied ${host}:${port} (${reason})\n`);
          logger.warn({ ...fields, imageId: spec.id }, message);
        },
      };
      let proxy: Awaited<ReturnType<typeof startEgressProxy>> | undefined;
      try {
        await mkdir(join(work, "layer"));
        await mkdir(join(work, "run"));
        await chown(work, userId, userId);
        await chown(join(work, "layer"), userId, userId);
        await chmod(join(work, "run"), 0o755);
        proxy = await startEgressProxy({
          allowedHosts: settings.registryHosts,
          allowPrivateEgress: settings.allowPrivateEgress,
          listen: { path: join(work, "run", "egress.sock") },
          ports: settings.proxyPorts,
          resolveHost: settings.resolveHost,
          logger: proxyLogger,
        });
        await chmod(join(work, "run", "egress.sock"), 0o666);
        const script = buildScript({
          npmPackages: spec.npmPackages,
          pythonPackages: spec.pythonPackages,
          aptPackages: spec.aptPackages,
          debianSuite: await debianSuite(),
          debianMirror: settings.debianMirror ?? "deb.debian.org",
        });
        const { exitCode, timedOut } = await runBuilderJail({
          work,
          script,
          userId,
          timeoutSeconds: settings.timeoutSeconds,
          signal,
          appendLog,
        });
        if (signal.aborted) throw new Error("image build aborted");
        if (exitCode !== 0 || timedOut) {
          return { status: "failed", reason: failureReason(log, exitCode, timedOut), log };
        }
        const digest = await layerDigest(join(work, "layer"));
        const layerPath = await keepLayer(join(work, "layer"), digest, spec.id);
        appendLog(`layer ${digest}\n`);
        return { status: "completed", digest, registryRef: null, layerPath, log };
      } finally {
        await proxy?.close();
        await rm(work, { recursive: true, force: true });
      }
    },
  };
}
