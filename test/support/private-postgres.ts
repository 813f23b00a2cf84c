/**
 * A PostgreSQL cluster of one test's own, for tests that stop and start the database under a
 * running server: the shared test cluster (.test-data/env) serves every other suite and is never
 * stopped. initdb runs as the `postgres` user (it refuses root) into a fresh temporary directory,
 * with its own port and socket directory; pgvector is installed system-wide, so `create extension
 * vector` works here as on the shared cluster. `remove` stops it and deletes the directory.
 */
import { execFile } from "node:child_process";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freePort } from "./processes.ts";

const run = promisify(execFile);
const binaries = "/usr/lib/postgresql/15/bin";

export interface PrivatePostgres {
  /** A database with pgvector, for SVC_DATABASE_URL. */
  url: string;
  start(): Promise<void>;
  /** A fast shutdown: open connections are ended, as when the database is restarted by its operator. */
  stop(): Promise<void>;
  remove(): Promise<void>;
}

/** Runs a PostgreSQL binary as the `postgres` user (a root test process may not run them itself). */
async function asPostgres(binary: string, args: string[]) {
  const command = process.getuid?.() === 0 ? "runuser" : join(binaries, binary);
  const commandArgs =
    process.getuid?.() === 0 ? ["-u", "postgres", "--", join(binaries, binary), ...args] : args;
  await run(command, commandArgs, { timeout: 60_000 });
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const directory = await mkdtemp(join(tmpdir(), "cairn-private-pg-"));
  const data = join(directory, "data");
  const port = await freePort();
  const { uid, gid } = await postgresUser();
  await chown(directory, uid, gid);
  await asPostgres("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"]);
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () =>
    asPostgres("pg_ctl", ["-D", data, "-o", options, "-l", join(directory, "server.log"), "-w", "start"]);
  const stop = () => asPostgres("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/cairn`;
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query("create database cairn");
  await admin.end();
  const database = new pg.Client({ connectionString: url });
  await database.connect();
  await database.query("create extension vector");
  await database.end();
  return {
    url,
    start,
    stop,
    async remove() {
      await stop().catch(() => {});
      await rm(directory, { recursive: true, force: true });
    },
  };
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([
    run("id", ["-u", "postgres"]),
    run("id", ["-g", "postgres"]),
  ]);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}
