/**
 * A private redis-server for a test (Debian's package, installed by scripts/setup-test-env.sh):
 * a free loopback port, nothing persisted, stopped by pid afterwards. `restart` brings it back on
 * the same port, empty, as a Redis that went away and came back would be.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createConnection } from "node:net";
import { freePort } from "./processes.ts";

export interface TestRedis {
  url: string;
  stop(): Promise<void>;
  restart(): Promise<void>;
}

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port }, () => {
      socket.end();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

async function launch(port: number): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const spawned = new Promise<void>((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", (error) =>
      reject(new Error(`redis-server: ${error.message} (run scripts/setup-test-env.sh, it installs it)`)),
    );
  });
  await spawned;
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode}):\n${output}`);
    if (await accepts(port)) return child;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill("SIGKILL");
  throw new Error(`redis-server did not listen on ${port} within 5 s:\n${output}`);
}

async function end(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

export async function startTestRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child = await launch(port);
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () => end(child),
    async restart() {
      await end(child);
      child = await launch(port);
    },
  };
}
