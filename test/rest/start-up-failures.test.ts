/**
 * A server that cannot start says why in one line on stderr, `cairn: <problem>; <fix>`, exits 1
 * and prints no stack trace (platform/start-up-failure.ts): a port in use, an invalid setting, a
 * data directory that is a file or that the user cannot write, a database it cannot reach or
 * that refuses it, a model server it cannot reach when semantic search is required. Each runs the
 * real entry point; the port and the setting also on Deno.
 */
import { spawn } from "node:child_process";
import { chmod, chown, copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEmbeddingsServer } from "../doubles/fake-embeddings-server.ts";
import { freePort, serverRuntimes, startServer } from "../support/processes.ts";

const [node] = serverRuntimes;
const nobody = 65534;

interface Exit {
  code: number | null;
  stderr: string;
}

/** Runs a server start that must fail, as `nobody` when asked (a root test cannot be refused a file). */
function startExpectingFailure(
  runtime: (typeof serverRuntimes)[number],
  environment: Record<string, string>,
  options: { asNobody?: boolean } = {},
): Promise<Exit> {
  const [command, args] = options.asNobody
    ? [
        "/usr/bin/setpriv",
        [
          `--reuid=${nobody}`,
          `--regid=${nobody}`,
          "--clear-groups",
          // Only so that `nobody` can read this checkout; writing still needs permission.
          "--inh-caps=+dac_read_search",
          "--ambient-caps=+dac_read_search",
          "--",
          runtime.command,
          ...runtime.args,
        ],
      ]
    : [runtime.command, runtime.args];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, SVC_LOG_LEVEL: "error", ...environment },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    // A server that starts anyway is killed, and fails the assertions below.
    const timer = setTimeout(() => child.kill("SIGKILL"), 40_000);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/** Exit 1 and exactly one line, `cairn: …`, matching `line`; no stack frames. */
function expectOneLine(exit: Exit, line: RegExp) {
  expect(exit.stderr).not.toMatch(/^\s+at /m);
  expect(exit.stderr.split("\n").filter(Boolean)).toEqual([expect.stringMatching(line)]);
  expect(exit.stderr).toMatch(/^cairn: [^\n]+; [^\n]+\n$/);
  expect(exit.code).toBe(1);
}

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "cairn-start-up-"));
  await chmod(scratch, 0o755);
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe.each(serverRuntimes)("on $name", (runtime) => {
  it("a port in use names the port and SVC_PORT, and leaves the data directory unlocked", async () => {
    const taken: Server = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => taken.listen(port, "127.0.0.1", resolve));
    const dataDir = join(scratch, `port-${runtime.name}`);
    try {
      const exit = await startExpectingFailure(runtime, {
        SVC_PORT: String(port),
        SVC_HOST: "127.0.0.1",
        SVC_DATA_DIR: dataDir,
      });
      expectOneLine(
        exit,
        new RegExp(
          `^cairn: cannot listen on 127\\.0\\.0\\.1 port ${port}: it is in use by another process; .*SVC_PORT`,
        ),
      );
      expect(await readdir(dataDir)).not.toContain("serve.lock");
    } finally {
      taken.close();
    }
  }, 60_000);

  it("SVC_PORT=abc names the variable, its value and what it takes", async () => {
    const exit = await startExpectingFailure(runtime, {
      SVC_PORT: "abc",
      SVC_DATA_DIR: join(scratch, "unused"),
    });
    expectOneLine(exit, /^cairn: invalid setting SVC_PORT: expected a whole number \(got "abc"\); /);
  }, 60_000);
});

describe("on Node", () => {
  it.each([
    ["SVC_PORT", "70000", /SVC_PORT: expected a whole number of at most 65535 \(got "70000"\)/],
    ["SVC_ENV", "prod", /SVC_ENV: expected one of "development"\|"production" \(got "prod"\)/],
    ["SVC_API_DOCS", "maybe", /SVC_API_DOCS: expected true, false, 1, 0, yes or no \(got "maybe"\)/],
    ["SVC_MAX_SANDBOX_STORAGE_GB", "lots", /SVC_MAX_SANDBOX_STORAGE_GB: expected a number \(got "lots"\)/],
    // A URL may hold a password: it is named, not echoed.
    ["SVC_DATABASE_URL", "mysql://root:hunter2@db/cairn", /SVC_DATABASE_URL: expected a postgres:\/\//],
  ])(
    "an invalid %s=%s is one line naming it",
    async (name, value, line) => {
      const exit = await startExpectingFailure(node, {
        [name]: value,
        SVC_DATA_DIR: join(scratch, "unused"),
      });
      expectOneLine(exit, line);
      expect(exit.stderr).not.toContain("hunter2");
    },
    60_000,
  );

  it("a data directory that is a file, or under one (ENOTDIR), says so and names SVC_DATA_DIR", async () => {
    const file = join(scratch, "a-file");
    await writeFile(file, "");
    for (const dataDir of [file, join(file, "below")]) {
      const exit = await startExpectingFailure(node, { SVC_PORT: "0", SVC_DATA_DIR: dataDir });
      expectOneLine(
        exit,
        new RegExp(
          `^cairn: cannot use the data directory ${dataDir}: .*is a file, not a directory; set SVC_DATA_DIR`,
        ),
      );
    }
  }, 60_000);

  it("a data directory the user cannot write says permission denied", async () => {
    const dataDir = join(scratch, "root-owned");
    await mkdir(dataDir, { mode: 0o755 });
    const exit = await startExpectingFailure(
      node,
      { SVC_PORT: "0", SVC_DATA_DIR: dataDir },
      { asNobody: true },
    );
    expectOneLine(exit, new RegExp(`^cairn: cannot use the data directory ${dataDir}: permission denied`));
  }, 60_000);

  it("a database file the user cannot write (once a SqliteError stack) names the file", async () => {
    // A data directory served once by root, then handed to another user without its files.
    const dataDir = join(scratch, "served-by-root");
    const server = await startServer(node.command, node.args, {
      SVC_DATA_DIR: dataDir,
      SVC_LOG_LEVEL: "warn",
    });
    await server.stop();
    const handedOver = join(scratch, "handed-over");
    await mkdir(handedOver, { mode: 0o700 });
    await copyFile(join(dataDir, "cairn.db"), join(handedOver, "cairn.db"));
    await chown(handedOver, nobody, nobody);
    const exit = await startExpectingFailure(
      node,
      { SVC_PORT: "0", SVC_DATA_DIR: handedOver },
      { asNobody: true },
    );
    expectOneLine(
      exit,
      new RegExp(`^cairn: cannot use the database ${handedOver}/cairn\\.db: permission denied`),
    );
  }, 90_000);

  it("a PostgreSQL nobody listens on is unreachable, without the URL's password", async () => {
    const port = await freePort();
    const exit = await startExpectingFailure(node, {
      SVC_PORT: "0",
      SVC_DATA_DIR: join(scratch, "pg-closed"),
      SVC_DATABASE_URL: `postgres://cairn:hunter2@127.0.0.1:${port}/cairn`,
    });
    expectOneLine(
      exit,
      new RegExp(
        `^cairn: cannot reach the database at 127\\.0\\.0\\.1:${port}/cairn: connection refused; start PostgreSQL or correct SVC_DATABASE_URL$`,
      ),
    );
    expect(exit.stderr).not.toContain("hunter2");
  }, 60_000);

  it.runIf(process.env.SVC_TEST_DATABASE_URL)(
    "a PostgreSQL that refuses the login names the user and SVC_DATABASE_URL",
    async () => {
      const url = new URL(process.env.SVC_TEST_DATABASE_URL ?? "");
      url.username = "no_such_cairn_user";
      url.password = "wrong";
      const exit = await startExpectingFailure(node, {
        SVC_PORT: "0",
        SVC_DATA_DIR: join(scratch, "pg-login"),
        SVC_DATABASE_URL: url.href,
      });
      expectOneLine(
        exit,
        /^cairn: the database at .* refused: role "no_such_cairn_user" does not exist; correct the user and password in SVC_DATABASE_URL$/,
      );
    },
    60_000,
  );

  it("a model server nobody listens on stops the start when semantic search is required", async () => {
    const port = await freePort();
    const exit = await startExpectingFailure(node, {
      SVC_PORT: "0",
      SVC_DATA_DIR: join(scratch, "model-server"),
      SVC_MEMORY_EMBEDDINGS_ENABLED: "true",
      SVC_MEMORY_EMBEDDINGS_REQUIRED: "true",
      SVC_MEMORY_EMBEDDING_BASE_URL: `http://127.0.0.1:${port}/v1`,
    });
    expectOneLine(
      exit,
      new RegExp(
        `^cairn: semantic search is required \\(SVC_MEMORY_EMBEDDINGS_REQUIRED=true\\) but the model server at http://127\\.0\\.0\\.1:${port}/v1 cannot embed: .*unreachable.*; start it`,
      ),
    );
  }, 60_000);

  it("a reachable model server lets a server that requires semantic search start", async () => {
    const modelServer = await startFakeEmbeddingsServer();
    try {
      const server = await startServer(node.command, node.args, {
        SVC_DATA_DIR: join(scratch, "model-server-up"),
        SVC_LOG_LEVEL: "warn",
        SVC_MEMORY_EMBEDDINGS_ENABLED: "true",
        SVC_MEMORY_EMBEDDINGS_REQUIRED: "true",
        SVC_MEMORY_EMBEDDING_BASE_URL: modelServer.url,
      });
      await server.stop();
      expect(modelServer.requests.length).toBeGreaterThanOrEqual(1);
    } finally {
      await modelServer.close();
    }
  }, 60_000);

  it("required semantic search with embeddings off is refused, naming both settings", async () => {
    const exit = await startExpectingFailure(node, {
      SVC_PORT: "0",
      SVC_DATA_DIR: join(scratch, "embeddings-off"),
      SVC_MEMORY_EMBEDDINGS_REQUIRED: "true",
    });
    expectOneLine(
      exit,
      /SVC_MEMORY_EMBEDDINGS_REQUIRED=true but semantic search is off; set SVC_MEMORY_EMBEDDINGS_ENABLED=true/,
    );
  }, 60_000);
});
