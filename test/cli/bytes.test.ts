/**
 * The CLI moves bytes exactly (docs/cli.md#cp): `cairn cp` both ways with a 50 MiB random file,
 * `files create --content-file` of random bytes and `files view` piped to a file give back the
 * same sha256; a binary file on a terminal-less view is written raw, and copies that cannot
 * happen fail with their exit codes and leave nothing behind. A live server, real sandboxes, the
 * real binary.
 */
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEntry, type LiveServer, startLiveServer } from "../mcp/mcp-harness.ts";
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
let sessionId: string;
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const run = (args: string[], input?: string) => runCairn(args, { env, input, cwd: cli.home });
const ok = (args: string[]) => runOk(args, { env, cwd: cli.home });

/** Runs cairn with stdout as bytes (the harness reads it as text). */
function runForBytes(args: string[]): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliEntry, ...args], {
      env,
      cwd: cli.home,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const chunks: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout: Buffer.concat(chunks), stderr }));
  });
}

beforeAll(async () => {
  server = await startLiveServer({ SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000" });
  cli = await createHome();
  env = cli.environment();
  await signUpThroughCli(cli, server.baseUrl);
  sessionId = (await runJson<{ id: string }>(["session", "create"], { env })).id;
}, 60_000);
afterAll(async () => {
  await server?.close();
  await cli?.remove();
});

describe("cairn cp", () => {
  it("copies a 50 MiB random file in and out byte for byte", async () => {
    const bytes = randomBytes(50 * 1024 * 1024);
    await writeFile(join(cli.home, "big.bin"), bytes);
    const up = await ok(["cp", "big.bin", ":/workspace/in/big.bin"]);
    expect(up.stdout).toContain("Copied big.bin to /workspace/in/big.bin (50.0 MiB)");
    const inside = await ok(["exec", "sha256sum in/big.bin"]);
    expect(inside.stdout.split(" ")[0]).toBe(sha256(bytes));

    const down = await ok(["cp", `${sessionId}:in/big.bin`, "back.bin"]);
    expect(down.stdout).toContain("Copied in/big.bin to back.bin");
    expect(sha256(await readFile(join(cli.home, "back.bin")))).toBe(sha256(bytes));
  }, 120_000);

  it("copies into a directory by name, from stdin and to stdout", async () => {
    const bytes = randomBytes(70_000);
    await writeFile(join(cli.home, "small.bin"), bytes);
    await ok(["cp", "small.bin", ":/tmp/"]);
    await ok(["cp", ":/tmp/small.bin", "."]);
    // "." already had small.bin: overwritten with the same bytes, no temporary file left.
    expect(sha256(await readFile(join(cli.home, "small.bin")))).toBe(sha256(bytes));
    expect((await readdir(cli.home)).filter((name) => name.includes(".part"))).toEqual([]);
    const piped = await runForBytes(["cp", ":/tmp/small.bin", "-"]);
    expect([piped.code, sha256(piped.stdout)]).toEqual([0, sha256(bytes)]);
    const fromStdin = await run(["cp", "-", ":stdin.txt"], "from stdin\n");
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect((await ok(["files", "view", "stdin.txt"])).stdout).toBe("from stdin\n");
  }, 60_000);

  it("refuses what it cannot copy, with exit codes, and leaves no partial file", async () => {
    expectFailure(await run(["cp", "a", "b"]), 2, "validation_error");
    expectFailure(await run(["cp", ":a", ":b"]), 2, "validation_error");
    expectFailure(await run(["cp", "missing.bin", ":x"]), 2, "missing_input");
    expectFailure(await run(["cp", ":/etc/passwd", "passwd"]), 5, "path_outside_sandbox");
    expectFailure(await run(["cp", ":nothing.bin", "nothing.bin"]), 4, "not_found");
    expect(
      (await readdir(cli.home)).filter((name) => name.includes("passwd") || name.includes("nothing")),
    ).toEqual([]);
  }, 60_000);
});

describe("files create and view", () => {
  it("--content-file of random bytes and a piped view round-trip exactly", async () => {
    const bytes = randomBytes(100);
    await writeFile(join(cli.home, "random.bin"), bytes);
    const created = await runJson<{ size: number }>(
      ["files", "create", "random.bin", "--content-file", "random.bin"],
      {
        env,
        cwd: cli.home,
      },
    );
    expect(created.size).toBe(100);
    const viewed = await runForBytes(["files", "view", "random.bin"]);
    expect([viewed.code, sha256(viewed.stdout)]).toEqual([0, sha256(bytes)]);
    // Text is unchanged, and a piped view adds nothing to a file without a final newline.
    await ok(["files", "create", "plain.txt", "--content", "no newline"]);
    expect((await runForBytes(["files", "view", "plain.txt"])).stdout.toString()).toBe("no newline");
  }, 60_000);

  it("a gzip viewed as JSON text is refused with file_not_utf8, never replaced", async () => {
    await writeFile(join(cli.home, "a.gz"), Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff]));
    await ok(["files", "create", "a.gz", "--content-file", "a.gz"]);
    const refused = await run(["files", "view", "a.gz", "--json"]);
    expectFailure(refused, 2, "file_not_utf8");
    const asBase64 = JSON.parse(
      (await ok(["files", "view", "a.gz", "--json", "--encoding", "base64"])).stdout,
    );
    expect(Buffer.from(asBase64.content, "base64")).toEqual(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff]));
  }, 60_000);

  it("on a terminal, a binary file is refused with a pointer to cairn cp, not printed", async () => {
    // `script` gives the command a terminal for stdout; its own output is the terminal's.
    const command = [process.execPath, cliEntry, "files", "view", "a.gz"].join(" ");
    const shown = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn("script", ["-qec", command, "/dev/null"], { env, cwd: cli.home });
      let output = "";
      child.stdout.on("data", (chunk) => {
        output += chunk;
      });
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, output }));
    });
    expect(shown.code, shown.output).toBe(2);
    expect(shown.output).toContain("a.gz is not UTF-8 text");
    expect(shown.output).toContain("cairn cp :a.gz ./FILE");
    expect(shown.output).toContain("[file_not_utf8]");
    expect(shown.output).not.toContain("\ufffd");
  }, 60_000);
});
