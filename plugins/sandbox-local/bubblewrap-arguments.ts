/**
 * The bwrap command line of one exec. What the sandbox sees of the host: /usr and the /bin, /lib,
 * /sbin links read-only, a short list of harmless /etc files, and nothing else of the host — no
 * /root, /home, /var, /opt, /run, /sys, host /proc or the server's environment. Fresh /proc and
 * /dev, every namespace unshared (no network at all), all capabilities dropped, a new session
 * (no TIOCSTI into the server's terminal) and a read-only root.
 */
import { lstatSync, readlinkSync } from "node:fs";
import { cp, mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * Host /etc entries a normal userland needs. They are copied (symlinks kept as they are, they
 * point into /usr) into one directory bound at /etc: one bind instead of twenty saves about 5 ms
 * per exec. /etc/ssl/private and the like are deliberately absent.
 */
const hostEtcEntries = [
  "alternatives",
  "bash.bashrc",
  "ca-certificates.conf",
  "debian_version",
  "inputrc",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "localtime",
  "magic",
  "magic.mime",
  "mime.types",
  "nsswitch.conf",
  "os-release",
  "profile",
  "protocols",
  "python3",
  "python3.11",
  "services",
  "ssl/certs",
  "ssl/openssl.cnf",
  "timezone",
];

/** Files written by the runtime instead of exposing the host's accounts and names. */
const generatedEtcFiles: Record<string, string> = {
  passwd: "root:x:0:0:root:/workspace:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
  group: "root:x:0:\nnogroup:x:65534:\n",
  hosts: "127.0.0.1\tlocalhost sandbox\n::1\tlocalhost ip6-localhost ip6-loopback\n",
  hostname: "sandbox\n",
};

export const sandboxEnvironment: Record<string, string> = {
  PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
  HOME: "/workspace",
  LANG: "C.UTF-8",
  TMPDIR: "/tmp",
};

/** (Re)builds the sandbox /etc under `directory` from the host's current files. */
export async function buildSandboxEtc(directory: string): Promise<void> {
  const staging = `${directory}.new-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true, mode: 0o755 });
  for (const entry of hostEtcEntries) {
    await cp(`/etc/${entry}`, join(staging, entry), { recursive: true, verbatimSymlinks: true }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      },
    );
  }
  for (const [name, content] of Object.entries(generatedEtcFiles)) {
    await writeFile(join(staging, name), content, { mode: 0o644 });
  }
  await rm(directory, { recursive: true, force: true });
  await rename(staging, directory);
}

/** Arguments that depend only on the host (computed once per runtime). */
export function hostSystemArguments(etcDirectory: string): string[] {
  const argumentsList = ["--ro-bind", "/usr", "/usr"];
  // On merged-/usr systems these are symlinks into /usr; elsewhere real directories.
  for (const name of ["bin", "sbin", "lib", "lib32", "lib64", "libx32"]) {
    const hostPath = `/${name}`;
    try {
      const stats = lstatSync(hostPath);
      if (stats.isSymbolicLink()) argumentsList.push("--symlink", readlinkSync(hostPath), hostPath);
      else if (stats.isDirectory()) argumentsList.push("--ro-bind", hostPath, hostPath);
    } catch {
      // Not present on this host.
    }
  }
  argumentsList.push("--ro-bind", etcDirectory, "/etc");
  return argumentsList;
}

export interface ExecMounts {
  workspace: string;
  tmp: string;
  volumes: Array<{ hostPath: string; mountPath: string }>;
}

export function bubblewrapArguments(
  systemArguments: string[],
  mounts: ExecMounts,
  command: string,
): string[] {
  const argumentsList = [
    "--unshare-all",
    // A user namespace is required, and none may be nested in it (less kernel surface).
    "--unshare-user",
    "--disable-userns",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--hostname",
    "sandbox",
    "--clearenv",
  ];
  for (const [name, value] of Object.entries(sandboxEnvironment)) argumentsList.push("--setenv", name, value);
  argumentsList.push(...systemArguments);
  argumentsList.push("--proc", "/proc", "--dev", "/dev");
  argumentsList.push("--bind", mounts.workspace, "/workspace", "--bind", mounts.tmp, "/tmp");
  // Shallow mounts first so that a volume inside /workspace is not hidden by it.
  const volumes = [...mounts.volumes].sort((a, b) => a.mountPath.length - b.mountPath.length);
  for (const volume of volumes) argumentsList.push("--bind", volume.hostPath, volume.mountPath);
  // A plain shell is pid 1 instead of bwrap's own init, which reports the exit code and is then
  // left to exit on its own: an orphan the host's init must reap, and until it does (never, where
  // the server is pid 1 of a container) the zombie holds one of the sandbox's pids.max, so a burst
  // of execs ends in "Can't fork". The command still runs in a child shell (pid 2, as before), so
  // it can be signalled like any process.
  argumentsList.push("--remount-ro", "/", "--chdir", "/workspace", "--as-pid-1");
  argumentsList.push("/bin/sh", "-c", '/bin/sh -c "$1"; exit $?', "/bin/sh", command);
  return argumentsList;
}
