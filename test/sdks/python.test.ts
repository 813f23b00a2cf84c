/**
 * The Python SDK (sdks/python) against one live server: its pytest suite, the conformance
 * scenario through its runner, the runnable example, and pyright's strict check of the package.
 * Each runs as a child process; a failure shows that process's output. The Python environment
 * comes from sdks/python/setup.sh (the test command's set-up step).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, root, startLiveServer } from "../mcp/mcp-harness.ts";
import { withExamplePlugins } from "../support/example-plugins.ts";
import { signUpWithKey } from "../support/processes.ts";

const sdk = join(root, "sdks/python");
const python = join(root, ".test-data/python-venv/bin/python");
const generous = 300_000;

interface Finished {
  code: number | null;
  output: string;
}

/** Runs a command to its end; never throws, so the assertion can show what it printed. */
function finish(
  command: string,
  args: string[],
  environment: Record<string, string> = {},
): Promise<Finished> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: root, env: { ...process.env, ...environment }, maxBuffer: 32 * 1024 * 1024, timeout: generous },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
        resolve({ code, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

describe("the Python SDK", () => {
  let server: LiveServer;
  // A second server with the example plugins, so their hooks never touch the first one's accounts.
  let pluginServer: LiveServer;

  beforeAll(async () => {
    if (!existsSync(python)) throw new Error("No Python environment: run `bash sdks/python/setup.sh` first");
    // Every pytest test signs up its own account; the HTTP-broker test reaches a server on this machine.
    server = await startLiveServer({
      SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000",
      SVC_ALLOW_PRIVATE_EGRESS: "true",
    });
    pluginServer = await startLiveServer({ SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000", ...withExamplePlugins });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await pluginServer?.close();
  });

  it(
    "set-up is idempotent, and fails with the install command when Python is missing",
    async () => {
      const script = join(sdk, "setup.sh");
      await finish("bash", [script]);
      const warm = await finish("bash", [script]);
      expect(warm.code, warm.output).toBe(0);
      expect(warm.output).toContain("python environment ready");
      const missing = await finish("bash", [script], { CAIRN_PYTHON: "/nonexistent/python3" });
      expect(missing.code, missing.output).toBe(1);
      expect(missing.output).toContain("apt-get install -y python3 python3-venv");
      expect(existsSync(python)).toBe(true);
    },
    generous,
  );

  it(
    "passes its pytest suite against the live server",
    async () => {
      const result = await finish(
        python,
        ["-m", "pytest", "-q", "-p", "no:cacheprovider", join(sdk, "tests")],
        {
          CAIRN_TEST_BASE_URL: server.baseUrl,
          CAIRN_TEST_PLUGINS_BASE_URL: pluginServer.baseUrl,
          CAIRN_BASE_URL: "",
          CAIRN_API_KEY: "",
        },
      );
      expect(result.code, result.output).toBe(0);
      expect(result.output).toMatch(/\d+ passed/);
      expect(result.output).not.toMatch(/skipped|failed|error/i);
    },
    generous,
  );

  it(
    "runs the conformance scenario",
    async () => {
      const result = await finish(python, [join(sdk, "tests/run_conformance.py"), server.baseUrl]);
      expect(result.code, result.output).toBe(0);
      expect(result.output).not.toContain("FAIL");
      expect(result.output).toContain("ok a destroyed sandbox reports it");
    },
    generous,
  );

  it(
    "runs the example",
    async () => {
      const account = await signUpWithKey(
        server.baseUrl,
        `python-example-${crypto.randomUUID()}@example.com`,
      );
      const result = await finish(python, [join(root, "examples/python-sdk/quickstart.py")], {
        CAIRN_BASE_URL: server.baseUrl,
        CAIRN_API_KEY: account.key,
      });
      expect(result.code, result.output).toBe(0);
      expect(result.output).toContain(`signed in as ${account.email}`);
      expect(result.output).toContain("recalled: The release train leaves every second Wednesday.");
      expect(result.output).toContain("sandbox said: 55 (exit 0)");
      expect(result.output).toMatch(/sandbox [0-9a-f-]{36} destroyed: True/);
    },
    generous,
  );

  it(
    "is formatted and lint-clean (ruff, configured in sdks/python/pyproject.toml)",
    async () => {
      const ruff = join(root, ".test-data/python-venv/bin/ruff");
      const paths = [sdk, join(root, "examples/python-sdk")];
      const config = ["--config", join(sdk, "pyproject.toml")];
      const format = await finish(ruff, ["format", "--check", ...config, ...paths]);
      expect(format.code, format.output).toBe(0);
      const lint = await finish(ruff, ["check", ...config, ...paths]);
      expect(lint.code, lint.output).toBe(0);
    },
    generous,
  );

  it(
    "type-checks strictly with pyright",
    async () => {
      const pyright = join(root, "node_modules/.bin/pyright");
      const result = await finish(pyright, ["--pythonpath", python, "-p", sdk]);
      expect(result.code, result.output).toBe(0);
      expect(result.output).toContain("0 errors");
    },
    generous,
  );
});
