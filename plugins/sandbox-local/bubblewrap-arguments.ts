/**
 * The bwrap command line of a sandbox's session, started at create (and again after a restart);
 * every exec joins its namespaces through the session helper (lib/sandbox-isolation). bwrap runs
 * as the session's own unprivileged host uid (the wrapper switches to it), so the user namespace
 * maps the sandbox user to that uid and to nothing else: no sandbox process is ever host root.
 * What the sandbox sees of the host: /usr and the /bin, /lib, /sbin links read-only
 * (hostSystemArguments, in the library), and nothing else — no /root, /home, /var, /opt, /run,
 * /sys, host /proc or the server's environment. /etc, /workspace and /tmp come from the
 * session's own disk (session-disk.ts). Fresh /proc with /proc/sys read-only, a minimal /dev,
 * every namespace unshared (no network at all), all capabilities dropped, a new session (no
 * TIOCSTI into the server's terminal), a read-only root and the seccomp filter (the library's
 * seccomp.ts).
 */
import { join } from "node:path";
import { languageServersPath } from "./language-servers.ts";
import { sandboxUserId } from "./session-disk.ts";
import { egressDirectory } from "./session-egress.ts";

export const sandboxEnvironment: Record<string, string> = {
  PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
  HOME: "/workspace",
  LANG: "C.UTF-8",
  TMPDIR: "/tmp",
};

export interface ExecMounts {
  /** Where the shared read-only /etc is mounted on the host. */
  etc: string;
  /** Where the session's disk is mounted on the host (holds workspace/ and tmp/). */
  disk: string;
  volumes: Array<{ hostPath: string; mountPath: string }>;
  /** A custom image's layer, read-only under /opt/cairn/image (image-layer.ts). */
  imageLayers: Array<{ hostPath: string; mountPath: string }>;
  /** A granted session's egress-proxy socket directory, read-only at /cairn/egress (session-egress.ts). */
  egress: string | null;
  /** Size of the /dev/shm tmpfs (memory, so bounded apart from the disk). */
  sharedMemoryBytes: number;
}

/**
 * What the session's bwrap runs: bwrap's own pid 1 (which reaps whatever is reparented to it) and,
 * as pid 2, a shell that says it is ready once every namespace and mount is in place, then becomes
 * `cat` on a pipe from the serving helper (lib/sandbox-isolation/session-spawner.ts), which never
 * writes to it and ends with the server's process: the pipe closes, cat exits, and pid 1 with it,
 * which ends every process of the session.
 */
export const sessionInitCommand = ["/bin/sh", "-c", "echo ready && exec /bin/cat > /dev/null"];

export function bubblewrapArguments(
  systemArguments: string[],
  mounts: ExecMounts,
  descriptors: { seccomp: number; info: number },
): string[] {
  const argumentsList = [
    "--unshare-all",
    "--unshare-user",
    "--uid",
    String(sandboxUserId),
    "--gid",
    String(sandboxUserId),
    "--new-session",
    "--cap-drop",
    "ALL",
    "--hostname",
    "sandbox",
    "--clearenv",
  ];
  for (const [name, value] of Object.entries(sandboxEnvironment)) argumentsList.push("--setenv", name, value);
  argumentsList.push(...systemArguments);
  argumentsList.push("--ro-bind", mounts.etc, "/etc");
  // bwrap does not cover /proc/sys for an unprivileged user; the uid already cannot write the
  // host's sysctls, and the read-only bind is the second wall.
  argumentsList.push("--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys");
  // bwrap's /dev is a tmpfs the sandbox could fill with files (memory, with no limit where
  // cgroups are missing): read-only, with a /dev/shm of bounded size.
  argumentsList.push("--dev", "/dev", "--size", String(mounts.sharedMemoryBytes), "--tmpfs", "/dev/shm");
  argumentsList.push("--remount-ro", "/dev");
  argumentsList.push("--bind", join(mounts.disk, "workspace"), "/workspace");
  argumentsList.push("--bind", join(mounts.disk, "tmp"), "/tmp");
  // Shallow mounts first so that a volume inside /workspace is not hidden by it.
  const volumes = [...mounts.volumes].sort((a, b) => a.mountPath.length - b.mountPath.length);
  for (const volume of volumes) argumentsList.push("--bind", volume.hostPath, volume.mountPath);
  for (const layer of mounts.imageLayers) argumentsList.push("--ro-bind", layer.hostPath, layer.mountPath);
  if (mounts.egress !== null) argumentsList.push("--ro-bind", mounts.egress, egressDirectory);
  // Where a session process's language servers are bound (language-servers.ts); empty here.
  argumentsList.push("--dir", languageServersPath);
  argumentsList.push("--remount-ro", "/", "--chdir", "/workspace");
  // The host pid of the session's pid 1, whose namespaces every exec joins.
  argumentsList.push("--info-fd", String(descriptors.info));
  argumentsList.push("--seccomp", String(descriptors.seccomp));
  argumentsList.push(...sessionInitCommand);
  return argumentsList;
}
