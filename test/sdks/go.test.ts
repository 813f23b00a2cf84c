/**
 * The Go SDK (sdks/go) against a live server: gofmt and go vet find nothing, `go test` passes
 * with CAIRN_TEST_BASE_URL set, and CAIRN_TEST_PLUGINS_BASE_URL naming a second server with the
 * example plugins (the URL table, error parsing, retry, timeouts and the live tests, none
 * skipped), the conformance runner completes test/conformance/scenario.json, and
 * the example in examples/go-sdk runs. sdks/go/setup.sh prepares the toolchain check and builds.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, root, startLiveServer } from "../mcp/mcp-harness.ts";
import { withExamplePlugins } from "../support/example-plugins.ts";
import { signUpWithKey } from "../support/processes.ts";

const sdkDir = join(root, "sdks/go");
const exampleDir = join(root, "examples/go-sdk");
const scenarioPath = join(root, "test/conformance/scenario.json");

interface Finished {
  code: number | null;
  stdout: string;
  output: string;
}

/** Runs a command to its end and keeps everything it printed, for the failure message. */
function runCommand(command: string, args: string[], cwd: string, environment: Record<string, string> = {}) {
  return new Promise<Finished>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, GOTOOLCHAIN: "local", ...environment },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let output = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) =>
      resolve({ code, stdout, output: `$ ${command} ${args.join(" ")}\n${output}` }),
    );
  });
}

describe("the Go SDK", () => {
  let server: LiveServer;
  // A second server with the example plugins, so their hooks never touch the first one's accounts.
  let pluginServer: LiveServer;

  beforeAll(async () => {
    server = await startLiveServer({ SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000" });
    pluginServer = await startLiveServer({ SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000", ...withExamplePlugins });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await pluginServer?.close();
  });

  it("is gofmt-clean and go vet finds nothing", async () => {
    const formatting = await runCommand("gofmt", ["-l", sdkDir, exampleDir], root);
    expect(formatting.code, formatting.output).toBe(0);
    expect(formatting.stdout, `gofmt would rewrite:\n${formatting.stdout}`).toBe("");
    for (const directory of [sdkDir, exampleDir]) {
      const vet = await runCommand("go", ["vet", "./..."], directory);
      expect(vet.code, vet.output).toBe(0);
    }
  }, 300_000);

  it("passes go test against the live server, skipping nothing", async () => {
    const tests = await runCommand("go", ["test", "-count=1", "-v", "./..."], sdkDir, {
      CAIRN_TEST_BASE_URL: server.baseUrl,
      CAIRN_TEST_PLUGINS_BASE_URL: pluginServer.baseUrl,
    });
    expect(tests.code, tests.output).toBe(0);
    expect(tests.stdout, tests.output).not.toContain("--- SKIP");
    for (const name of [
      "TestBaseURLRuleRefuses",
      "TestParseAPIErrorDefaults",
      "TestRetryHonoursRetryAfterDate",
      "TestPostIsNeverRetried",
      "TestExecWaitsItsTimeoutPlusFifteenSeconds",
      "TestLiveQuotaCapabilityAndEgressErrors",
      "TestLiveExecTimeoutOutlastsTheClientTimeout",
      "TestLiveCallToolRemembersThenRecalls",
      "TestLivePluginToolsByName",
      "TestLiveWatchSandbox",
    ])
      expect(tests.stdout, tests.output).toContain(`--- PASS: ${name} `);
  }, 300_000);

  it("runs the conformance scenario", async () => {
    const steps = JSON.parse(await readFile(scenarioPath, "utf8")).steps as { title: string }[];
    const conformance = await runCommand(
      "go",
      ["run", "./cmd/conformance", "-base-url", server.baseUrl, "-scenario", scenarioPath],
      sdkDir,
    );
    expect(conformance.code, conformance.output).toBe(0);
    expect(conformance.stdout.trim().split("\n"), conformance.output).toEqual(
      steps.map((step) => `ok ${step.title}`),
    );
  }, 300_000);

  it("runs the example", async () => {
    const account = await signUpWithKey(server.baseUrl);
    const example = await runCommand("go", ["run", "."], exampleDir, {
      CAIRN_BASE_URL: server.baseUrl,
      CAIRN_API_KEY: account.key,
    });
    expect(example.code, example.output).toBe(0);
    expect(example.stdout).toContain(`signed in as ${account.email}`);
    expect(example.stdout).toContain("recalled: The user prefers concise answers with code first.");
    expect(example.stdout).toContain("sandbox printed 45");
    expect(example.stdout).toContain("forgotten: Memory not found");
  }, 300_000);
});
