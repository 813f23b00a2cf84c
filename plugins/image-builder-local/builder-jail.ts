/**
 * The jail an image build runs in: bubblewrap, started by the session helper as a sandbox's
 * session is (build-isolation.ts): in the build's cgroups, with the rlimits, as the build's own
 * host uid with no groups and no_new_privs, and under the sessions' seccomp filter. Inside: new
 * user, pid, mount, network, IPC, UTS and cgroup namespaces, no capabilities, a read-only root
 * with `/usr`, the few `/etc` files package tools read, `/proc` with `/proc/sys` read-only, a
 * read-only `/dev` with a bounded `/dev/shm`, and from the build's disk the layer it fills (at
 * /layer), its `/tmp` and the directory holding the egress proxy's socket (at /run/cairn,
 * read-only). Its network has loopback only. It dies with the server, at its time limit, or when
 * the build is aborted; when it returns, no process of the build is left.
 */
import { hostSystemArguments, limitSettings, seccompDescriptor } from "../../lib/sandbox-isolation/index.ts";
import type { BuildHost, BuildRoom } from "./build-isolation.ts";
import { jailLayer } from "./build-script.ts";

export interface BuilderJailOptions {
  host: BuildHost;
  room: BuildRoom;
  script: string;
  timeoutSeconds: number;
  signal: AbortSignal;
  appendLog: (text: string) => void;
  bubblewrapPath?: string;
}

/** Host /etc entries visible read-only in the jail: what the package tools read. */
const readOnlyPaths = [
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/apt",
  "/etc/dpkg",
  "/etc/alternatives",
  "/etc/passwd",
  "/etc/group",
  "/etc/nsswitch.conf",
  "/etc/hosts",
  "/etc/os-release",
  "/etc/debian_version",
  "/etc/python3",
  "/etc/python3.11",
  "/var/lib/dpkg",
];

export function builderJailArguments(room: BuildRoom, sharedMemoryBytes: number, script: string): string[] {
  return [
    "--unshare-all",
    "--unshare-user",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--hostname",
    "image-build",
    "--clearenv",
    "--setenv",
    "PATH",
    "/usr/local/bin:/usr/bin:/bin",
    "--setenv",
    "LANG",
    "C.UTF-8",
    ...hostSystemArguments(),
    ...readOnlyPaths.flatMap((path) => ["--ro-bind-try", path, path]),
    "--proc",
    "/proc",
    "--ro-bind",
    "/proc/sys",
    "/proc/sys",
    // bwrap's /dev is a tmpfs the build could fill: read-only, with a /dev/shm of bounded size.
    "--dev",
    "/dev",
    "--size",
    String(sharedMemoryBytes),
    "--tmpfs",
    "/dev/shm",
    "--remount-ro",
    "/dev",
    "--bind",
    room.layer,
    jailLayer,
    "--bind",
    room.tmp,
    "/tmp",
    "--ro-bind",
    room.run,
    "/run/cairn",
    "--remount-ro",
    "/",
    "--chdir",
    "/tmp",
    // The host pid of the jail's pid 1, which a kill targets (session-helper.c's descriptor 3).
    "--info-fd",
    "3",
    "--seccomp",
    String(seccompDescriptor),
    "--",
    "/bin/sh",
    "-c",
    // stdin is the serving helper's never-written pipe: nothing in a build may wait on it.
    `exec </dev/null 3>&-\n${script}`,
  ];
}

export async function runBuilderJail(options: BuilderJailOptions): Promise<{
  exitCode: number | null;
  timedOut: boolean;
}> {
  const { host, room, signal, appendLog } = options;
  const settings = [
    ...limitSettings({
      cgroupTaskFiles: room.cgroupTaskFiles,
      limits: host.limits,
      // Without cgroups the memory limit is RLIMIT_AS per process, as in a session.
      addressSpaceLimit: host.cgroups === null,
    }),
    `seccomp ${host.seccompFile}`,
    `uid ${room.uid}`,
  ];
  const bubblewrap = options.bubblewrapPath ?? "/usr/bin/bwrap";
  const argumentsList = builderJailArguments(room, Math.floor(host.limits.memoryBytes / 4), options.script);
  let info = "";
  const command = host.spawner.runSession(`${settings.join("\n")}\n\n`, [bubblewrap, ...argumentsList], {
    stdout: (chunk) => appendLog(chunk.toString()),
    stderr: (chunk) => appendLog(chunk.toString()),
    extra: (chunk) => {
      if (info.length < 4096) info += chunk.toString();
    },
  });
  let running = true;
  let timedOut = false;
  let late: NodeJS.Timeout | undefined;
  const signalQuietly = (target: number) => {
    try {
      process.kill(target, "SIGKILL");
    } catch {
      // Already gone.
    }
  };
  /**
   * SIGKILLs the jail's pid 1: the kernel ends every process of its pid namespace and bwrap,
   * which reaps it, exits (killing bwrap first would leave pid 1 to the host's init to reap).
   * Before bwrap has named its pid 1, and if bwrap has not exited soon after, its process group.
   */
  const kill = () => {
    void command.pid.then(
      (group) => {
        if (!running) return;
        const jailPid = /"child-pid"\s*:\s*(\d+)/.exec(info)?.[1];
        if (jailPid !== undefined) signalQuietly(Number(jailPid));
        else signalQuietly(-group);
        late ??= setTimeout(() => {
          if (running) signalQuietly(-group);
        }, 2000);
      },
      () => {},
    );
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, options.timeoutSeconds * 1000);
  signal.addEventListener("abort", kill, { once: true });
  if (signal.aborted) kill();
  try {
    const status = await command.status.catch((error: Error) => {
      appendLog(`${error.message}\n`);
      return null;
    });
    // A wait status: exited (low 7 bits 0) with its code in the next byte, or killed by a signal.
    const exitCode = status !== null && (status & 0x7f) === 0 ? (status >> 8) & 0xff : null;
    return { exitCode, timedOut };
  } finally {
    running = false;
    clearTimeout(timer);
    clearTimeout(late);
    signal.removeEventListener("abort", kill);
    await host.cgroups?.destroySandbox(room.id);
  }
}
