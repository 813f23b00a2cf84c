/**
 * The jail an image build runs in: bubblewrap started as an unprivileged host user with new user,
 * pid, mount, network, IPC, UTS and cgroup namespaces (`--unshare-all`). It sees `/usr`, the few
 * `/etc` files package tools read, a private `/tmp`, the layer directory it fills (at /layer) and
 * the directory holding the egress proxy's socket (at /run/cairn, read-only); its network has
 * loopback only. It dies with the server, at its time limit, or when the build is aborted.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { lstat, readlink } from "node:fs/promises";
import { join } from "node:path";
import { jailLayer } from "./build-script.ts";

export interface BuilderJailOptions {
  /** A directory holding `layer` (owned by `userId`) and `run` (the proxy's socket). */
  work: string;
  script: string;
  userId: number;
  timeoutSeconds: number;
  signal: AbortSignal;
  appendLog: (text: string) => void;
}

/** Host paths visible read-only in the jail: the toolchains and what they read from /etc. */
const readOnlyPaths = [
  "/usr",
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

async function rootLinks(): Promise<string[]> {
  const args: string[] = [];
  for (const path of ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]) {
    const stat = await lstat(path).catch(() => null);
    if (!stat) continue;
    if (stat.isSymbolicLink()) args.push("--symlink", await readlink(path), path);
    else args.push("--ro-bind", path, path);
  }
  return args;
}

export async function runBuilderJail(options: BuilderJailOptions): Promise<{
  exitCode: number | null;
  timedOut: boolean;
}> {
  const { work, script, userId, signal, appendLog } = options;
  const args = [
    "--unshare-all",
    "--die-with-parent",
    "--new-session",
    ...readOnlyPaths.flatMap((path) => ["--ro-bind-try", path, path]),
    ...(await rootLinks()),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--tmpfs",
    "/tmp",
    "--bind",
    join(work, "layer"),
    jailLayer,
    "--ro-bind",
    join(work, "run"),
    "/run/cairn",
    "--chdir",
    "/tmp",
    "--",
    "/bin/sh",
    "-c",
    script,
  ];
  const child: ChildProcess = spawn("bwrap", args, {
    uid: userId,
    gid: userId,
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => appendLog(chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => appendLog(chunk.toString()));
  let timedOut = false;
  const kill = () => child.kill("SIGKILL");
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, options.timeoutSeconds * 1000);
  signal.addEventListener("abort", kill, { once: true });
  try {
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (code) => resolve(code));
    });
    return { exitCode, timedOut };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", kill);
  }
}
