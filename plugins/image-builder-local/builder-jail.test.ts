/**
 * The builder jail on this machine: a script inside runs as the unprivileged builder user, sees
 * neither the host's files nor its processes, and has no network of its own: a server listening
 * on the host's loopback and a public address are both unreachable, while the layer directory
 * it was given is writable.
 */
import { once } from "node:events";
import { chown, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runBuilderJail } from "./builder-jail.ts";

let work: string;
let server: Server;
let port: number;
let reached = 0;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "cairn-jail-test-"));
  await mkdir(join(work, "layer"));
  await mkdir(join(work, "run"));
  await chown(work, 65534, 65534);
  await chown(join(work, "layer"), 65534, 65534);
  server = createServer((socket) => {
    reached += 1;
    socket.end();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  server.close();
  await rm(work, { recursive: true, force: true });
});

const tryConnect = (host: string, targetPort: number) =>
  `/usr/bin/node -e 'require("net").connect(${targetPort}, "${host}").on("connect", () => { console.log("connected ${host}"); process.exit(0) }).on("error", (error) => { console.log("refused ${host} " + error.code); process.exit(0) })'`;

it("runs as the builder user with no host files, no host processes and no network", async () => {
  let log = "";
  const { exitCode, timedOut } = await runBuilderJail({
    work,
    script: [
      "echo uid=$(id -u)",
      `test -e ${process.cwd()} && echo host-files-visible || echo host-files-hidden`,
      "echo processes: $(cat /proc/[0-9]*/comm | sort -u | tr '\\n' ' ')",
      tryConnect("127.0.0.1", port),
      tryConnect("1.1.1.1", 443),
      "echo written > /layer/probe",
    ].join("\n"),
    userId: 65534,
    timeoutSeconds: 60,
    signal: new AbortController().signal,
    appendLog: (text) => {
      log += text;
    },
  });
  expect({ exitCode, timedOut }).toEqual({ exitCode: 0, timedOut: false });
  expect(log).toContain("uid=65534");
  expect(log).toContain("host-files-hidden");
  // bwrap's init, the shell and the pipeline itself: nothing of the host (vitest runs as node).
  const processes = /processes: (.*)/.exec(log)?.[1].trim().split(" ") ?? [];
  expect(processes).toContain("sh");
  expect(processes.filter((name) => !["bwrap", "sh", "cat", "sort", "tr"].includes(name))).toEqual([]);
  expect(log).toMatch(/refused 127\.0\.0\.1 ECONNREFUSED/);
  expect(log).toMatch(/refused 1\.1\.1\.1 (ENETUNREACH|EHOSTUNREACH)/);
  expect(log).not.toContain("connected");
  expect(reached).toBe(0);
  expect(await readFile(join(work, "layer/probe"), "utf8")).toBe("written\n");
});
