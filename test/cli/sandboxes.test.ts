/**
 * The sandbox side of the CLI against a live server with real sandboxes: sessions (and picking
 * the only active one), exec's output and exit code, files, the allowlist, images with --wait,
 * volumes and secrets, each error class with its exit code.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CairnClient } from "cairn-client";
import { parse } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, startLiveServer } from "../mcp/mcp-harness.ts";
import {
  type CliHome,
  createHome,
  expectFailure,
  runCairn,
  runJson,
  runOk,
  signUpThroughCli,
} from "./cli-harness.ts";

let server: LiveServer;
let cli: CliHome;
let env: Record<string, string>;
const run = (args: string[], input?: string) => runCairn(args, { env, input });
const ok = (args: string[], input?: string) => runOk(args, { env, input });
const json = <T = Record<string, unknown>>(args: string[], input?: string) =>
  runJson<T>(args, { env, input });

beforeAll(async () => {
  server = await startLiveServer({
    SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000",
    SVC_IMAGE_BUILD_RATE_LIMIT_PER_MINUTE: "100",
    SVC_VOLUME_RATE_LIMIT_PER_MINUTE: "100",
  });
  cli = await createHome();
  env = cli.environment();
  await signUpThroughCli(cli, server.baseUrl);
});
afterAll(async () => {
  await server.close();
  await cli.remove();
});

interface Session {
  id: string;
  status: string;
  label: string | null;
}

describe("sessions, exec and files", () => {
  let first: Session;

  it("says how to start when no session is active (exit 2)", async () => {
    expectFailure(await run(["exec", "ls"]), 2, "no_active_session");
  });

  it("prints exec's output as the command writes it, and exits with its code", async () => {
    const session = await json<Session>(["session", "create", "--label", "live", "--lifetime-minutes", "10"]);
    const marker = `/workspace/go-${crypto.randomUUID()}`;
    let released: Promise<unknown> | undefined;
    const result = await runCairn(
      [
        "exec",
        "--session",
        session.id,
        `echo first; while [ ! -e ${marker} ]; do sleep 0.05; done; echo second >&2; exit 4`,
      ],
      {
        env,
        // The command cannot end before the marker exists, and it is made once "first" is printed.
        onStdout(chunk) {
          if (released === undefined && chunk.includes("first"))
            released = ok(["exec", "--session", session.id, `touch ${marker}`]);
        },
      },
    );
    await released;
    expect(result).toMatchObject({ code: 4, stdout: "first\n", stderr: "second\n" });
    await ok(["session", "rm", session.id]);
  });

  it("creates a session and runs commands in the only active one", async () => {
    first = await json<Session>(["session", "create", "--label", "first", "--lifetime-minutes", "10"]);
    expect(first).toMatchObject({ status: "active", label: "first" });

    const failing = await run(["exec", "echo out; echo err >&2; exit 3"]);
    expect(failing).toMatchObject({ code: 3, stdout: "out\n" });
    expect(failing.stderr).toContain("err\n");

    const passThrough = await run(["exec", "--session", first.id, "ls", "-la", "/workspace"]);
    expect(passThrough.code).toBe(0);
    expect(passThrough.stdout).toMatch(/^total /m);

    // Several words are one command's arguments, each passed as given (docker exec's rule).
    const python = await run(["exec", "python3", "-c", "print(6*7)"]);
    expect(python).toMatchObject({ code: 0, stdout: "42\n" });
    const quoted = await run(["exec", "printf", "%s|", "it's", "a b", "$HOME", "*"]);
    expect(quoted).toMatchObject({ code: 0, stdout: "it's|a b|$HOME|*|" });

    // Words after the command belong to it, so --json goes before.
    const result = JSON.parse((await ok(["exec", "--json", "echo hi"])).stdout);
    expect(result).toMatchObject({ exit_code: 0, stdout: "hi\n", timed_out: false });

    const listed = await ok(["session", "ls"]);
    expect(listed.stdout).toMatch(/^ID\s+STATUS\s+LABEL\s+CREATED\s+EXPIRES \/ ENDED$/m);
    expect(listed.stdout).toMatch(
      new RegExp(`^${first.id}\\s+active\\s+first\\s+(just now|\\d+ seconds ago)\\s+in (9|10) minutes$`, "m"),
    );
  });

  it("writes, reads, edits and searches files", async () => {
    const created = await json<{ path: string; created: boolean }>([
      "files",
      "create",
      "notes/a.txt",
      "--content",
      "hello world\nsecond line\n",
    ]);
    expect(created).toEqual({ path: "/workspace/notes/a.txt", size: 24, created: true });
    await ok(["files", "create", "app.py"], "print('from stdin')\n");
    const local = join(cli.home, "local.py");
    await writeFile(local, "import os\n");
    await ok(["files", "create", "lib.py", "--content-file", local]);

    expect((await ok(["files", "view", "app.py"])).stdout).toBe("print('from stdin')\n");
    expect(
      (await ok(["files", "view", "notes/a.txt", "--start-line", "2", "--end-line", "2"])).stdout,
    ).toContain("second line");
    const edited = await json<{ replaced: number }>([
      "files",
      "edit",
      "notes/a.txt",
      "--old",
      "hello",
      "--new",
      "goodbye",
    ]);
    expect(edited.replaced).toBe(1);
    expect((await ok(["exec", "cat notes/a.txt"])).stdout).toBe("goodbye world\nsecond line\n");

    const entries = await json<{ entries: Array<{ path: string }> }>(["files", "ls"]);
    expect(entries.entries.map((entry) => entry.path)).toEqual(
      expect.arrayContaining(["/workspace/app.py", "/workspace/lib.py", "/workspace/notes/"]),
    );
    expect((await ok(["files", "ls", "notes"])).stdout).toMatch(/^\/workspace\/notes\/a\.txt\s+26 B\s+/m);
    const globbed = await json<{ matches: Array<{ path: string }> }>(["files", "glob", "**/*.py"]);
    expect(globbed.matches.map((match) => match.path).sort()).toEqual([
      "/workspace/app.py",
      "/workspace/lib.py",
    ]);
    expect((await ok(["files", "grep", "import", "--glob", "*.py"])).stdout).toBe(
      "/workspace/lib.py:1:import os\n",
    );

    expectFailure(await run(["files", "view", "/etc/passwd"]), 5, "path_outside_sandbox");
    expect((await run(["files", "edit", "app.py", "--old", "absent text", "--new", "x"])).code).not.toBe(0);
  });

  it("applies the allowlist to exec (exit 5) and clears it", async () => {
    const rules = join(cli.home, "rules.json");
    await writeFile(rules, JSON.stringify(["echo"]));
    expect(await json(["allowlist", "set", rules])).toEqual({ rules: ["echo"] });
    expect((await ok(["allowlist", "get"])).stdout).toBe("echo\n");
    expectFailure(await run(["exec", "ls"]), 5, "command_not_allowed");
    expect(await json(["allowlist", "set", "-"], '["echo", "ls"]')).toEqual({ rules: ["echo", "ls"] });
    expectFailure(await run(["allowlist", "set", "-"], "[]"), 2, "validation_error");
    await ok(["allowlist", "clear"]);
    expect(await json(["allowlist", "get"])).toEqual({ rules: [] });
  });

  it("lists the active ids when several could be meant, and stops at the concurrent cap (exit 7)", async () => {
    const second = await json<Session>(["session", "create"]);
    const ambiguous = await run(["exec", "ls"]);
    expectFailure(ambiguous, 2, "ambiguous_session");
    expect(ambiguous.stderr).toContain(first.id);
    expect(ambiguous.stderr).toContain(second.id);
    expectFailure(await run(["session", "create"]), 7, "concurrent_sandbox_limit_reached");

    expect((await ok(["session", "rm", second.id])).stdout).toContain(`Destroyed session ${second.id}`);
    const gone = await json<Session & { ended_reason: string }>(["session", "get", second.id]);
    expect(gone).toMatchObject({ status: "destroyed", ended_reason: "destroyed" });
    expectFailure(await run(["session", "rm", second.id]), 4, "not_found");
    expect((await ok(["session", "get", first.id])).stdout).toMatch(/^Status:\s+active$/m);
    const active = await json<Session[]>(["session", "ls", "--active-only"]);
    expect(active.map((session) => session.id)).toEqual([first.id]);
  });

  it("checks flag values with the server's schemas before any request (exit 2)", async () => {
    const size = await run(["session", "create", "--size", "huge"]);
    expect(size.code).toBe(2);
    expect(size.stderr).toMatch(
      /^cairn: option '--size <size>' argument 'huge' is invalid\. Allowed choices are small, medium, large\./,
    );
    const count = await run(["session", "create", "--count", "11"]);
    expectFailure(count, 2, "validation_error");
    expect(count.stderr).toContain("--count");
    expectFailure(await run(["exec", "--timeout", "5000", "ls"]), 2, "validation_error");
    // Past 100 s only streamed: --json waits for the JSON answer, which keeps 1-100 s.
    expectFailure(await run(["exec", "--json", "--timeout", "500", "ls"]), 2, "validation_error");
    expect(await run(["exec", "--timeout", "500", "echo streamed"])).toMatchObject({
      code: 0,
      stdout: "streamed\n",
    });
    expectFailure(await run(["session", "create", "--volume-mounts", "no-path"]), 2, "validation_error");
  });
});

describe("images, volumes and secrets", () => {
  it("builds an image with --wait, then lists, shows and deletes it", async () => {
    const built = await runOk(["images", "build", "--label", "plain", "--wait"], { env });
    expect(built.stdout).toMatch(/Image .* is ready/);
    expect(built.stderr).toMatch(/Building image /);
    const images = await json<Array<{ id: string; status: string; label: string }>>(["images", "ls"]);
    expect(images).toEqual([expect.objectContaining({ label: "plain", status: "completed" })]);
    expect((await ok(["images", "get", images[0].id])).stdout).toMatch(/^Status:\s+completed$/m);
    await ok(["images", "rm", images[0].id]);
    expectFailure(await run(["images", "get", images[0].id]), 4, "not_found");
    expectFailure(await run(["images", "build", "--python-package", "requests"]), 2, "validation_error");
  });

  it("creates, lists, shows and deletes a volume", async () => {
    expect((await run(["volumes", "create"])).code).toBe(2);
    const volume = await json<{ id: string; status: string }>([
      "volumes",
      "create",
      "--size-gb",
      "0.1",
      "--label",
      "data",
    ]);
    expect(volume.status).toBe("queued");
    const listed = await json<Array<{ id: string; label: string }>>(["volumes", "ls"]);
    expect(listed.map((entry) => entry.id)).toEqual([volume.id]);
    expect((await ok(["volumes", "get", volume.id])).stdout).toMatch(/^Size:\s+0\.1 GB$/m);
    await ok(["volumes", "rm", volume.id]);
    expectFailure(await run(["volumes", "get", volume.id]), 4, "not_found");
  });

  it("stores a secret from a hidden prompt, lists it without its value, and deletes it", async () => {
    const created = await runOk(["secrets", "create", "GITHUB_TOKEN", "--allowed-hosts", "api.github.com"], {
      env,
      input: "s3cret-value\n",
    });
    expect(created.stderr).toContain("Value of GITHUB_TOKEN:");
    const secrets = await json<Array<{ id: string; name: string; allowed_hosts: string[] }>>([
      "secrets",
      "ls",
    ]);
    expect(secrets).toEqual([
      expect.objectContaining({ name: "GITHUB_TOKEN", allowed_hosts: ["api.github.com"] }),
    ]);
    expect(JSON.stringify(secrets)).not.toContain("s3cret-value");
    const taken = await run([
      "secrets",
      "create",
      "GITHUB_TOKEN",
      "--value",
      "x",
      "--allowed-hosts",
      "api.github.com",
    ]);
    expectFailure(taken, 6, "secret_name_taken");
    await ok(["secrets", "rm", secrets[0].id]);
    expect(await json(["secrets", "ls"])).toEqual([]);
  });

  it("starts a session from an image, with a mounted volume, a secret and an MCP connection", async () => {
    const image = JSON.parse((await ok(["images", "build", "--label", "base", "--wait", "--json"])).stdout);
    expect(image.status).toBe("completed");
    const volume = await json<{ id: string; status: string }>(["volumes", "create", "--size-gb", "0.1"]);
    for (let attempt = 0; attempt < 100; attempt++) {
      if ((await json<{ status: string }>(["volumes", "get", volume.id])).status === "ready") break;
    }
    await ok(["secrets", "create", "API_TOKEN", "--value", "token", "--allowed-hosts", "api.github.com"]);
    // The CLI has no command for MCP connections (CONTRACT §10); the SDK makes one.
    const apiKey = parse(await readFile(cli.configFile, "utf8")).api_key as string;
    await new CairnClient({ baseUrl: server.baseUrl, apiKey }).createMcpConnection({
      catalogId: "github",
      label: "gh",
    });

    const session = await json<Session>([
      "session",
      "create",
      "--image-id",
      image.id,
      "--volume-mounts",
      `${volume.id}=/data`,
      "--secret-names",
      "API_TOKEN",
      "--mcp-connections",
      "gh",
    ]);
    expect(session.status).toBe("active");
    expect(
      (await ok(["exec", "--session", session.id, "echo kept > /data/file && cat /data/file"])).stdout,
    ).toBe("kept\n");
    expectFailure(await run(["volumes", "rm", volume.id]), 6, "volume_in_use");
    await ok(["session", "rm", session.id]);
    await ok(["volumes", "rm", volume.id]);
  });
});
