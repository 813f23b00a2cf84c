/** Starting real server processes for end-to-end tests: a free port, a readiness wait, a clean stop. */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { readdir, readFile, readlink } from "node:fs/promises";
import { createServer } from "node:net";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "../..");

/** The server as each runtime starts it: Node and Deno (the npm package's binary). */
export const serverRuntimes = [
  { name: "Node", command: process.execPath, args: [join(root, "platform/serve.ts")] },
  {
    name: "Deno",
    command: join(root, "node_modules/deno/deno"),
    args: ["run", "--allow-all", "--unstable-no-legacy-abort", join(root, "platform/serve-deno.ts")],
  },
];

/**
 * Node's flags for a benchmark's server: `npm start`'s (as the Dockerfile gives them too), or
 * BENCH_NODE_FLAGS ("" for none).
 */
export function benchNodeFlags(): string[] {
  const start: string = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts.start;
  const flags =
    process.env.BENCH_NODE_FLAGS ?? start.replace(/^node /, "").replace(/ ?platform\/serve\.ts$/, "");
  return flags.split(" ").filter(Boolean);
}

/** CPU time a process (or a task: `pid/task/tid`) has used so far, in milliseconds, from /proc. */
export async function cpuMilliseconds(pid: number | string | undefined): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  // utime and stime, in clock ticks (100 a second), are fields 14 and 15, after the "(name)".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * CPU time each thread of a process has used so far, in milliseconds, by "tid name" (the kernel's
 * name: Node calls the serving thread MainThread, a worker thread WorkerThread, V8's collector
 * helpers V8Worker).
 */
export async function threadCpuMilliseconds(pid: number | undefined): Promise<Map<string, number>> {
  const threads = new Map<string, number>();
  for (const task of await readdir(`/proc/${pid}/task`).catch(() => [])) {
    const name = (await readFile(`/proc/${pid}/task/${task}/comm`, "utf8").catch(() => "?")).trim();
    threads.set(`${task} ${name}`, await cpuMilliseconds(`${pid}/task/${task}`));
  }
  return threads;
}

/**
 * CPU time every PostgreSQL process has used so far (the throwaway test cluster serves only the
 * benchmark while it runs), in milliseconds: the live processes' own, and what the postmaster's
 * ended children (closed connections) used, which the kernel adds to its `cutime`/`cstime`.
 */
export async function postgresCpuMilliseconds(): Promise<number> {
  let total = 0;
  for (const entry of await readdir("/proc").catch(() => [])) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    if (!stat.includes("(postgres)")) continue;
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10;
  }
  return total;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Whether `pid`, or a process it started, holds the listening TCP socket of `port` (Linux /proc). */
async function listensOn(pid: number | undefined, port: number): Promise<boolean> {
  if (pid === undefined) return false;
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const lines = (await readFile(table, "utf8").catch(() => "")).split("\n").slice(1);
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      // local_address, state 0A (LISTEN), inode.
      if (fields[1]?.endsWith(hexPort) && fields[3] === "0A") inodes.add(fields[9]);
    }
  }
  if (inodes.size === 0) return false;
  const parents = new Map<number, number>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (stat) parents.set(Number(entry), parent);
  }
  const ours = (candidate: number) => {
    for (let current = candidate; current > 1; current = parents.get(current) ?? 0)
      if (current === pid) return true;
    return false;
  };
  for (const candidate of parents.keys()) {
    if (!ours(candidate)) continue;
    const fds = await readdir(`/proc/${candidate}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const target = await readlink(`/proc/${candidate}/fd/${fd}`).catch(() => "");
      if (inodes.has(target.slice(8, -1)) && target.startsWith("socket:[")) return true;
    }
  }
  return false;
}

export interface RunningServer {
  baseUrl: string;
  process: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

/** Spawns a server command and waits (bounded) until GET /health answers. */
export async function startServer(
  command: string,
  args: string[],
  environment: Record<string, string>,
): Promise<RunningServer> {
  // Another process may take the port `freePort` let go of before the child binds it: the child
  // then stops saying so, and starts again on another port.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOn(await freePort(), command, args, environment);
    } catch (error) {
      if (attempt === 3 || !(error instanceof Error) || !error.message.includes(portTaken)) throw error;
    }
  }
}

// What a server that could not listen on its port says (platform/explain-start-up-failure.ts).
const portTaken = "it is in use by another process";

async function startServerOn(
  port: number,
  command: string,
  args: string[],
  environment: Record<string, string>,
): Promise<RunningServer> {
  const child = spawn(command, args, {
    env: { ...process.env, ...environment, SVC_PORT: String(port), SVC_HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    // Already gone (exited, or killed by a signal: then exitCode stays null).
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  };
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${output}`);
    try {
      // Healthy, and the port is our process's: one that took the port would answer in its place.
      if ((await fetch(`${baseUrl}/health`)).ok && (await listensOn(child.pid, port)))
        return { baseUrl, process: child, output: () => output, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`server did not become healthy within 30 s:\n${output}`);
}

/** POSTs JSON to a live server; a non-2xx answer throws with its body. */
export async function postJson<T = Record<string, string>>(
  url: string,
  body: unknown,
  credential?: string,
): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(credential ? { authorization: `Bearer ${credential}` } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${url}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

export interface LiveAccount {
  email: string;
  token: string;
  key: string;
  keyId: string;
}

/** Signs up on a live server and creates an API key, as a user would. */
export async function signUpWithKey(
  baseUrl: string,
  email = `user-${crypto.randomUUID()}@example.com`,
): Promise<LiveAccount> {
  const signup = await postJson(`${baseUrl}/v1/auth/signup`, { email, password: "correct horse battery" });
  const key = await postJson(`${baseUrl}/v1/api-keys`, { name: "test" }, signup.access_token);
  return { email, token: signup.access_token, key: key.key, keyId: key.id };
}
