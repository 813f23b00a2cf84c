/**
 * Long-running work in sandbox pods on the real control plane (test/support/kubernetes-cluster.ts),
 * through the REST API as Cairn's own service account: background processes, previews of a pod's
 * port, the takeover terminal, language servers, raw file bytes and core's file walk (grep over
 * links and FIFOs, base64 files). Each is one or more execs
 * through the API server to the node's exec endpoint, and the execs of a pod share its namespaces
 * (as a container's do; pod-command.sh), so a process one exec started is reached on the pod's
 * loopback by the next, and a stop's exec signals it. The execs the node ran are read from its log.
 */
import { createHash, randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { relaySource } from "../../core/sandboxes/previews/relay.ts";
import { objectName } from "../../plugins/sandbox-kubernetes/manifests.ts";
import { eventually } from "../support/eventually.ts";
import { createCairnRuntime, useKubernetesTestCluster } from "../support/kubernetes-cluster-cairn.ts";
import type { TestPlatform } from "../support/platforms.ts";
import { echoServerSource, openSocket, serveOverNode } from "./preview-terminal-support.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  type SandboxClient,
} from "./sandbox-client.ts";

const useCluster = useKubernetesTestCluster();
const mebibyte = 1024 * 1024;
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

interface ProcessOut {
  process_id: string;
  status: "running" | "exited" | "killed" | "timed_out";
  exit_code: number | null;
}

interface OutputOut {
  stdout: string;
  stderr: string;
  next_offset: number;
  status: ProcessOut["status"];
}

describe("long-running work in a sandbox pod on a real Kubernetes control plane", () => {
  let test: TestPlatform;
  let client: SandboxClient;
  let served: Awaited<ReturnType<typeof serveOverNode>>;
  let sessionId: string;
  const port = 8765;
  const processes = (suffix = "") => `/v1/sandboxes/${sessionId}/processes${suffix}`;
  const start = async (command: string) => {
    const started = await client.sendJson<ProcessOut>(processes(), { method: "POST", json: { command } });
    expect([started.status, started.body.status], JSON.stringify(started.body)).toEqual([201, "running"]);
    return started.body.process_id;
  };
  /** Long-polls the process's output until both streams hold what is asked. */
  const readUntil = async (processId: string, stdout: string, stderr = "") => {
    let seen = { stdout: "", stderr: "" };
    let since = 0;
    while (!seen.stdout.includes(stdout) || !seen.stderr.includes(stderr)) {
      const page = await client.sendJson<OutputOut>(
        processes(`/${processId}/output?since_offset=${since}&wait_seconds=10`),
      );
      expect(page.status).toBe(200);
      if (page.body.status !== "running" && page.body.next_offset === since)
        throw new Error(`the process ended (${page.body.status}) with ${JSON.stringify(seen)}`);
      seen = { stdout: seen.stdout + page.body.stdout, stderr: seen.stderr + page.body.stderr };
      since = page.body.next_offset;
    }
    return seen;
  };
  const stop = (processId: string) =>
    client.sendJson<ProcessOut>(processes(`/${processId}/stop`), { method: "POST" });
  /** The command lines of the pod's processes, as an exec of the pod lists them. */
  const podProcesses = async () => {
    const listed = await client.exec(sessionId, "ps -eo args=");
    expect(listed.body.exit_code).toBe(0);
    return listed.body.stdout.split("\n").filter((line) => line !== "");
  };

  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite", { sandboxRuntime: createCairnRuntime(useCluster()) });
    client = await createSandboxClient(test);
    served = await serveOverNode(test);
    sessionId = (await client.createActive()).id;
  }, 120_000);
  afterAll(async () => {
    await served?.close();
    await test?.close();
  });

  it("runs a background process that takes stdin, streams both outputs, and stops with every process it started", {
    timeout: 120_000,
  }, async () => {
    const processId = await start(
      "echo out; echo err >&2; read line; echo got $line; sleep 1001 & sleep 1002; wait",
    );
    const input = await client.sendJson<{ bytes_written: number }>(processes(`/${processId}/input`), {
      method: "POST",
      json: { data: "hello\n" },
    });
    expect([input.status, input.body.bytes_written]).toEqual([200, 6]);
    expect(await readUntil(processId, "got hello\n", "err\n")).toEqual({
      stdout: "out\ngot hello\n",
      stderr: "err\n",
    });
    // Another exec of the pod sees the process and its children: one pod, one set of processes.
    const running = await podProcesses();
    expect(running).toEqual(expect.arrayContaining(["sleep 1001", "sleep 1002"]));
    const listed = await client.sendJson<{ processes: ProcessOut[] }>(processes());
    expect(listed.body.processes.find((entry) => entry.process_id === processId)?.status).toBe("running");

    const stopped = await stop(processId);
    expect([stopped.status, stopped.body.status]).toEqual([200, "killed"]);
    // The stop's exec signalled the command and what it started in the background.
    const left = await podProcesses();
    expect(left.filter((line) => /sleep 100[12]/.test(line))).toEqual([]);
    const again = await client.sendJson(processes(`/${processId}/input`), {
      method: "POST",
      json: { data: "more" },
    });
    expect([again.status, errorCode(again.body)]).toEqual([409, "process_not_running"]);
  });

  it("previews a server on the pod's loopback over HTTP and a WebSocket, and an exec reaches it too", {
    timeout: 120_000,
  }, async () => {
    const written = await client.sendJson(`/v1/sandboxes/${sessionId}/files`, {
      method: "POST",
      json: { path: "echo-server.js", content: echoServerSource },
    });
    expect(written.status).toBe(200);
    const serverId = await start(`node echo-server.js ${port}`);
    await readUntil(serverId, "listening");

    const fetched = await client.exec(
      sessionId,
      `node -e "fetch('http://127.0.0.1:${port}/from-exec').then(r => r.text()).then(console.log)"`,
    );
    expect([fetched.body.exit_code, fetched.body.stdout]).toEqual([0, `hello from ${port} GET /from-exec\n`]);

    const created = await client.sendJson<{ url: string }>(`/v1/sandboxes/${sessionId}/preview/${port}`, {
      method: "POST",
      json: { ttl_seconds: 120 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const url = `${served.origin}${new URL(created.body.url).pathname}`;
    for (const path of ["a/b?c=1", "second"]) {
      const page = await fetch(`${url}${path}`);
      expect([page.status, await page.text()]).toEqual([200, `hello from ${port} GET /${path}`]);
    }
    const posted = await fetch(url, { method: "POST", body: "ping" });
    expect(await posted.text()).toBe(`hello from ${port} POST / body=ping`);
    const socket = openSocket(url.replace("http:", "ws:"));
    await socket.opened;
    socket.socket.send("hi there");
    await socket.waitFor(/echo: hi there/);
    socket.socket.close();
    // Every request and the WebSocket went through one relay: one exec into the pod.
    const relays = useCluster()
      .execs(objectName(sessionId))
      .filter((argv) => argv.includes(relaySource));
    expect(relays).toHaveLength(1);

    // A port nothing listens on is the preview's own answer, not a hang.
    const closed = await client.sendJson<{ url: string }>(`/v1/sandboxes/${sessionId}/preview/8766`, {
      method: "POST",
      json: {},
    });
    const refused = await fetch(`${served.origin}${new URL(closed.body.url).pathname}`);
    expect(refused.status).toBe(502);

    expect((await stop(serverId)).body.status).toBe("killed");
    const gone = await fetch(`${url}after-stop`);
    expect(gone.status).toBe(502);
  });

  it("opens the takeover terminal on a PTY in the pod that resizes, and sees the pod's files", {
    timeout: 120_000,
  }, async () => {
    const minted = await client.sendJson<{ token: string }>(`/v1/sandboxes/${sessionId}/takeover-token`, {
      method: "POST",
      json: {},
    });
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    const terminal = openSocket(
      `${served.origin.replace("http:", "ws:")}/v1/sandboxes/${sessionId}/takeover?token=${minted.body.token}&rows=30&cols=90`,
    );
    await terminal.opened;
    terminal.socket.send(Buffer.from("tty; stty size; id -u; ls /workspace\n"));
    await terminal.waitFor(/\/dev\/pts\/\d+[\s\S]*30 90[\s\S]*65532[\s\S]*echo-server\.js/);
    terminal.socket.send(JSON.stringify({ type: "resize", rows: 40, cols: 100 }));
    terminal.socket.send(Buffer.from("stty size\n"));
    await terminal.waitFor(/40 100/);
    terminal.socket.close();
  });

  it("runs a language server from the sandbox image in a pod process, and its stop ends it", {
    timeout: 180_000,
  }, async () => {
    const lsp = <T>(suffix: string, json: Record<string, unknown> = {}) =>
      client.sendJson<T>(`/v1/sandboxes/${sessionId}/lsp/${suffix}`, { method: "POST", json });
    const started = await lsp<{ lsp_id: string }>("start", { language: "typescript" });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const lspId = started.body.lsp_id;
    const opened = await lsp(`${lspId}/open`, { path: "main.ts", content: 'const s = "x"; s.' });
    expect([opened.status, opened.body]).toEqual([200, { status: "opened" }]);
    const completion = await lsp<{ items: Array<{ label: string; kind?: number }> }>(`${lspId}/completion`, {
      path: "main.ts",
      line: 0,
      character: 17,
    });
    expect(completion.status).toBe(200);
    expect(completion.body.items.find((item) => item.label === "toUpperCase")?.kind).toBe(2);
    expect((await podProcesses()).some((line) => line.includes("typescript-language-server"))).toBe(true);

    expect((await lsp(`${lspId}/stop`)).status).toBe(200);
    // The server and the tsserver it started end once signalled, as soon as the pod's processes
    // get a core: waited for, not assumed at the stop's answer.
    const languageServers = async () =>
      (await podProcesses()).filter(
        (line) => line.includes("typescript-language-server") || line.includes("tsserver"),
      );
    await eventually(async () => ((await languageServers()).length === 0 ? true : undefined));
    expect(await languageServers()).toEqual([]);
  });

  it("uploads and downloads raw bytes through the pod's exec API in 8 MiB execs, byte for byte", {
    timeout: 120_000,
  }, async () => {
    const cluster = useCluster();
    const pod = objectName(sessionId);
    const route = `/v1/sandboxes/${sessionId}/files/raw?path=${encodeURIComponent("up/big.bin")}`;
    const operations = (from: number) =>
      cluster
        .execs(pod)
        .slice(from)
        .map((argv) => argv.slice(argv.indexOf("cairn-files") + 1, -2));
    const bytes = randomBytes(17 * mebibyte + 5);
    let before = cluster.execs(pod).length;
    const uploaded = await test.request(route, {
      method: "PUT",
      body: bytes,
      headers: { "content-type": "application/octet-stream" },
      credential: client.key,
    });
    expect(uploaded.status).toBe(200);
    expect(await uploaded.json()).toEqual({
      path: "/workspace/up/big.bin",
      size: bytes.length,
      created: true,
    });
    const onNode = join(cluster.podsDirectory, cluster.sandboxNamespace, pod, "workspace/up");
    expect(sha256(readFileSync(join(onNode, "big.bin")))).toBe(sha256(bytes));
    expect(readdirSync(onNode)).toEqual(["big.bin"]);
    // A look at the target, a temporary file begun beside it, 8 MiB per exec, the rename.
    const uploads = operations(before);
    const token = uploads[1]?.[2] ?? "";
    expect(uploads).toEqual([
      ["stat", "/workspace/up/big.bin", "0"],
      ["begin", "/workspace/up/big.bin", token],
      ["append", "/workspace/up/big.bin", `${token}:${8 * mebibyte}`],
      ["append", "/workspace/up/big.bin", `${token}:${8 * mebibyte}`],
      ["append", "/workspace/up/big.bin", `${token}:${mebibyte + 5}`],
      ["commit", "/workspace/up/big.bin", token],
    ]);

    before = cluster.execs(pod).length;
    const downloaded = await test.request(route, { credential: client.key });
    expect(downloaded.status).toBe(200);
    const body = new Uint8Array(await downloaded.arrayBuffer());
    expect([body.length, sha256(body)]).toEqual([bytes.length, sha256(bytes)]);
    // Core's look at the file, the stream's own, then one exec per 8 MiB range (offset:length).
    expect(operations(before)).toEqual([
      ["stat", "/workspace/up/big.bin", "0"],
      ["stat", "/workspace/up/big.bin", "0"],
      ["range", "/workspace/up/big.bin", `0:${8 * mebibyte}`],
      ["range", "/workspace/up/big.bin", `${8 * mebibyte}:${8 * mebibyte}`],
      ["range", "/workspace/up/big.bin", `${16 * mebibyte}:${mebibyte + 5}`],
    ]);
  });

  it("greps the pod's files walking past links inside and out, to files and to nowhere, and FIFOs", {
    timeout: 60_000,
  }, async () => {
    const made = await client.exec(
      sessionId,
      [
        "mkdir -p g/src/deep && cd g",
        "echo needle > src/a.txt && echo 'needle deep' > src/deep/b.txt",
        "ln -s /workspace/g/src link && ln -s /etc outside-link && ln -s src/a.txt file-link.txt",
        "ln -s missing dangling.txt && ln -s .. src/up && mkfifo pipe.txt",
      ].join(" && "),
    );
    expect([made.body.exit_code, made.body.stderr]).toEqual([0, ""]);
    const grep = (json: Record<string, unknown>) =>
      client.sendJson<{ matches: unknown[]; truncated: boolean }>(`/v1/sandboxes/${sessionId}/files/grep`, {
        method: "POST",
        json,
      });
    const expected = [
      { path: "/workspace/g/src/a.txt", line: 1, text: "needle" },
      { path: "/workspace/g/src/deep/b.txt", line: 1, text: "needle deep" },
    ];
    for (const glob of [undefined, "*.txt", "**/*.txt"]) {
      const found = await grep({ pattern: "needle|root:", path: "g", ...(glob && { glob }) });
      expect([found.status, found.body.matches, found.body.truncated]).toEqual([200, expected, false]);
    }
    // A link named as the root is followed while it stays inside; one leading out is refused.
    const viaLink = await grep({ pattern: "needle", path: "g/link", glob: "deep/*" });
    expect(viaLink.body.matches).toEqual([expected[1]]);
    const outside = await grep({ pattern: "root", path: "g/outside-link" });
    expect([outside.status, errorCode(outside.body)]).toEqual([403, "path_outside_sandbox"]);
  });

  it("writes and views a binary file in base64 exactly, and refuses a text view of it", {
    timeout: 60_000,
  }, async () => {
    const bytes = Buffer.from(new Uint8Array(70_000).map((_, index) => (index * 7919) % 256));
    const created = await client.sendJson(`/v1/sandboxes/${sessionId}/files`, {
      method: "POST",
      json: { path: "bin/data.bin", content: bytes.toString("base64"), encoding: "base64" },
    });
    expect([created.status, created.body]).toEqual([
      200,
      { path: "/workspace/bin/data.bin", size: bytes.length, created: true },
    ]);
    const view = (json: Record<string, unknown>) =>
      client.sendJson<{ content: string; encoding: string }>(`/v1/sandboxes/${sessionId}/files/view`, {
        method: "POST",
        json: { path: "bin/data.bin", ...json },
      });
    const viewed = await view({ encoding: "base64" });
    expect([viewed.body.encoding, sha256(Buffer.from(viewed.body.content, "base64"))]).toEqual([
      "base64",
      sha256(bytes),
    ]);
    const asText = await view({});
    expect([asText.status, errorCode(asText.body)]).toEqual([422, "file_not_utf8"]);
  });
});
