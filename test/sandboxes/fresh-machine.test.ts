/**
 * A fresh machine: a real server whose local runtime finds no bubblewrap (SVC_BUBBLEWRAP_PATH
 * names a missing file) says so at start in one line with the command that fixes it, answers
 * sandbox routes and sandbox MCP tools with 503 service_unavailable carrying that command, and
 * serves accounts and memory as usual. And `npm run setup` (scripts/setup.sh) names the command
 * to run when it is not root and finds something missing, and only checks when nothing is.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpTransport, type LiveServer, root, startLiveServer } from "../mcp/mcp-harness.ts";
import { type LiveAccount, signUpWithKey } from "../support/processes.ts";

const missingBubblewrap = "/nonexistent/cairn-test/bwrap";

interface ErrorEnvelope {
  error: { code: string; message: string; retryable: boolean; remediation: string | null };
}

describe("a server without bubblewrap", () => {
  let server: LiveServer;
  let account: LiveAccount;
  beforeAll(async () => {
    server = await startLiveServer({ SVC_BUBBLEWRAP_PATH: missingBubblewrap });
    account = await signUpWithKey(server.baseUrl);
  }, 60_000);
  afterAll(() => server?.close());

  const send = (path: string, init: RequestInit = {}) =>
    fetch(`${server.baseUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${account.key}`, "content-type": "application/json" },
    });

  it("says at start, in one line, what sandboxes lack and the command that fixes it", async () => {
    const logged = () =>
      server
        .output()
        .split("\n")
        .filter((line) => line.includes("sandboxes are not available"));
    // The runtime checks the host while the server starts; bounded wait for its line.
    for (let attempt = 0; attempt < 100 && logged().length === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const lines = logged();
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]) as { level: number; msg: string };
    expect(entry.level).toBe(40);
    expect(entry.msg).toContain(`bubblewrap (no ${missingBubblewrap})`);
    expect(entry.msg).toContain("fix: sudo npm run setup");
  });

  it("answers sandbox routes with 503 service_unavailable and the remediation", async () => {
    const sandboxId = crypto.randomUUID();
    for (const [method, path, body] of [
      ["POST", "/v1/sandboxes", "{}"],
      ["GET", "/v1/sandboxes", undefined],
      ["GET", `/v1/sandboxes/${sandboxId}`, undefined],
      ["POST", `/v1/sandboxes/${sandboxId}/exec`, JSON.stringify({ command: "true" })],
      ["POST", `/v1/sandboxes/${sandboxId}/files/ls`, JSON.stringify({ path: "/" })],
    ] as const) {
      const response = await send(path, { method, body });
      expect(response.status, `${method} ${path}`).toBe(503);
      const { error } = (await response.json()) as ErrorEnvelope;
      expect(error.code).toBe("service_unavailable");
      expect(error.message).toContain("bubblewrap");
      expect(error.remediation).toContain("sudo npm run setup");
    }
  });

  it("serves accounts and memory as usual", async () => {
    const whoami = await send("/v1/account");
    expect(((await whoami.json()) as { email: string }).email).toBe(account.email);
    const remembered = await send("/v1/memory", {
      method: "POST",
      body: JSON.stringify({ content: "The fresh machine has no bubblewrap yet." }),
    });
    expect(remembered.status).toBe(201);
    const found = await send("/v1/memory/search?q=bubblewrap");
    expect(((await found.json()) as { memories: unknown[] }).memories).toHaveLength(1);
  });

  it("answers sandbox MCP tools with the same error, and memory tools as usual", async () => {
    const client = new Client({ name: "fresh-machine", version: "1" });
    await client.connect(httpTransport(server.baseUrl, account.key));
    try {
      const created = await client.callTool({ name: "create_sandbox", arguments: {} });
      expect(created.isError).toBe(true);
      expect(created.structuredContent).toMatchObject({
        error: { code: "service_unavailable", remediation: expect.stringContaining("sudo npm run setup") },
      });
      const recalled = await client.callTool({ name: "recall", arguments: { query: "bubblewrap" } });
      expect(recalled.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});

describe("npm run setup", () => {
  const run = (command: string, args: string[], env: Record<string, string>) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(command, args, { cwd: root, env }, (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
      ),
    );

  it("as another user with bubblewrap and cc missing, names them and the command to run", async () => {
    // A PATH with the shell tools the script uses and neither bwrap nor cc.
    const bin = await mkdtemp(join(tmpdir(), "cairn-setup-path-"));
    try {
      for (const tool of ["bash", "dirname", "id", "awk", "grep", "mkdir", "rmdir"]) {
        await symlink(`/usr/bin/${tool}`, join(bin, tool));
      }
      const result = await run(
        "/usr/bin/setpriv",
        [
          "--reuid=65534",
          "--regid=65534",
          "--clear-groups",
          // Only so that `nobody` can read this checkout wherever it was cloned; no root privilege.
          "--inh-caps=+dac_read_search",
          "--ambient-caps=+dac_read_search",
          "--",
          "/usr/bin/bash",
          "scripts/setup.sh",
        ],
        { PATH: bin },
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("local sandboxes need bubblewrap gcc, and installing them needs root");
      expect(result.stderr).toContain("sudo npm run setup");
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
  });

  it("only checks when nothing is missing", async () => {
    const result = await run("bash", ["scripts/setup.sh"], { PATH: process.env.PATH ?? "" });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("setup: sandbox host tools: present");
    expect(result.stdout).not.toContain("installed");
  });
});
