/**
 * Egress for a local sandbox granted hosts (create's `mcp_connection_names`, resolved by core to
 * catalog hosts): the sandbox still has no network of its own, only loopback. An allowlisting
 * proxy (lib/egress-proxy) runs in the server, outside the sandbox, on a Unix socket in a
 * directory of the session's disk that the sandbox sees read-only at /cairn/egress; a forwarder inside
 * the session (a session process) listens on 127.0.0.1:3128 and passes each connection to that
 * socket, and every command of the session has HTTP(S)_PROXY pointing at it. So exactly the
 * granted names on 443 and 80 are reachable, resolved by the proxy; a program that ignores the
 * proxy variables reaches nothing. A sandbox without grants has none of this.
 */
import { chmod, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../../core/ports/logger.ts";
import { type EgressProxy, forwarderSource, startEgressProxy } from "../../lib/egress-proxy/index.ts";

/** Where the proxy's socket directory appears in the sandbox. */
export const egressDirectory = "/cairn/egress";
const socketName = "egress.sock";
const forwarderPort = 3128;
const proxyUrl = `http://127.0.0.1:${forwarderPort}`;

/** The proxy variables a granted session's commands get. */
export const egressEnvironment: Record<string, string> = {
  HTTP_PROXY: proxyUrl,
  HTTPS_PROXY: proxyUrl,
  http_proxy: proxyUrl,
  https_proxy: proxyUrl,
  NO_PROXY: "localhost,127.0.0.1",
  no_proxy: "localhost,127.0.0.1",
};

/** The forwarder, run with the host's read-only /usr/bin/node; prints "ready" once listening. */
export const forwarderCommand = `exec /usr/bin/node -e '${forwarderSource(`${egressDirectory}/${socketName}`, forwarderPort, 'console.log("ready")')}'`;

export interface EgressSettings {
  /** SVC_ALLOW_PRIVATE_EGRESS. */
  allowPrivateEgress: boolean;
  /** Tests: how the proxy resolves names and which ports it allows (default 443 and 80). */
  resolveHost?: (host: string) => Promise<string[]>;
  ports?: readonly number[];
}

/** The host directory holding a session's proxy socket (on its disk, outside workspace/ and tmp/). */
export const egressHostDirectory = (diskMountPoint: string) => join(diskMountPoint, "egress");

export function createSessionEgress(settings: EgressSettings & { logger: Logger }) {
  const proxies = new Map<string, Promise<EgressProxy>>();

  return {
    /** Starts the session's proxy (idempotent). */
    start(id: string, hosts: readonly string[], diskMountPoint: string): Promise<EgressProxy> {
      let proxy = proxies.get(id);
      if (proxy === undefined) {
        proxy = (async () => {
          const directory = egressHostDirectory(diskMountPoint);
          await mkdir(directory, { recursive: true, mode: 0o755 });
          const path = join(directory, socketName);
          await rm(path, { force: true });
          const started = await startEgressProxy({
            allowedHosts: hosts,
            allowPrivateEgress: settings.allowPrivateEgress,
            listen: { path },
            ports: settings.ports,
            resolveHost: settings.resolveHost,
            logger: settings.logger.child({ sandboxId: id }),
          });
          // The session's uid connects to it; nothing else can reach the directory.
          await chmod(path, 0o666);
          return started;
        })();
        proxies.set(id, proxy);
        proxy.catch(() => proxies.delete(id));
      }
      return proxy;
    },
    async stop(id: string): Promise<void> {
      const proxy = proxies.get(id);
      proxies.delete(id);
      await (await proxy?.catch(() => null))?.close();
    },
    async stopAll(): Promise<void> {
      await Promise.all([...proxies.keys()].map((id) => this.stop(id)));
    },
  };
}

export type SessionEgress = ReturnType<typeof createSessionEgress>;
