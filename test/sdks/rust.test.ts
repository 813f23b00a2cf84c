/**
 * The Rust SDK against a live server (and a second one with the example plugins, for the plugin
 * tools through call_tool): its cargo tests (unit, scripted-server and live), the
 * conformance runner over test/conformance/scenario.json, and the runnable example in
 * examples/rust-sdk. sdks/rust/setup.sh builds everything first; here cargo only re-checks
 * freshness, offline, in the same target folder.
 */
import { spawn } from "node:child_process";
import { homedir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, startLiveServer } from "../mcp/mcp-harness.ts";
import { withExamplePlugins } from "../support/example-plugins.ts";
import { signUpWithKey } from "../support/processes.ts";

const root = resolve(import.meta.dirname, "../..");
const sdk = join(root, "sdks/rust");
const example = join(root, "examples/rust-sdk");
const cargoTargetDir = join(root, ".test-data/cargo-target");
const generous = 300_000;
// rustup's folder, which a non-login shell may not have on PATH (setup.sh does the same).
const cargoBin = join(process.env.CARGO_HOME ?? join(homedir(), ".cargo"), "bin");

interface Finished {
  code: number | null;
  output: string;
}

/** Runs cargo in `cwd` and collects stdout and stderr together, in order. */
function cargo(args: string[], cwd: string, environment: Record<string, string>): Promise<Finished> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn("cargo", args, {
      cwd,
      env: {
        ...process.env,
        PATH: `${process.env.PATH ?? ""}${delimiter}${cargoBin}`,
        CARGO_TARGET_DIR: cargoTargetDir,
        CARGO_TERM_COLOR: "never",
        ...environment,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.once("error", (error) =>
      reject(
        new Error(`cannot run cargo (${error.message}): run sdks/rust/setup.sh, which says what to install`),
      ),
    );
    child.once("close", (code) => resolvePromise({ code, output }));
  });
}

describe("Rust SDK", () => {
  let server: LiveServer;
  // A second server with the example plugins, so their hooks never touch the first one's accounts.
  let pluginServer: LiveServer;
  beforeAll(async () => {
    // The cargo tests sign up an account per test, more than the default 10 a minute per IP.
    server = await startLiveServer({ SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000" });
    pluginServer = await startLiveServer({ SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000", ...withExamplePlugins });
  });
  afterAll(async () => {
    await server?.close();
    await pluginServer?.close();
  });

  it(
    "cargo test passes against the live server",
    async () => {
      const result = await cargo(["test", "--locked", "--offline"], sdk, {
        CAIRN_TEST_BASE_URL: server.baseUrl,
        CAIRN_TEST_PLUGINS_BASE_URL: pluginServer.baseUrl,
      });
      expect(result.code, result.output).toBe(0);
      // The live tests ran (not filtered out or skipped).
      expect(result.output).toContain("test call_tool_remembers_then_recalls ... ok");
      expect(result.output).toContain("test plugin_tools_are_listed_and_called_by_name ... ok");
      expect(result.output).toContain("test a_third_concurrent_sandbox_is_a_quota_error ... ok");
      expect(result.output).toContain("test a_post_is_never_retried ... ok");
      expect(result.output).toContain("test refused_urls_fail_at_construction ... ok");
      expect(result.output).toContain("test watches_new_activity_live_and_ends_with_the_sandbox ... ok");
    },
    generous,
  );

  it(
    "the conformance runner completes the shared scenario",
    async () => {
      const result = await cargo(
        ["run", "--locked", "--offline", "--quiet", "--example", "conformance"],
        sdk,
        {
          CAIRN_BASE_URL: server.baseUrl,
        },
      );
      expect(result.code, result.output).toBe(0);
      expect(result.output).not.toContain("FAIL ");
      expect(result.output).toContain("ok a third concurrent sandbox is refused");
      expect(result.output).toContain("ok a destroyed sandbox reports it");
    },
    generous,
  );

  it(
    "the example in examples/rust-sdk runs",
    async () => {
      const account = await signUpWithKey(server.baseUrl);
      const result = await cargo(["run", "--locked", "--offline", "--quiet"], example, {
        CAIRN_BASE_URL: server.baseUrl,
        CAIRN_API_KEY: account.key,
      });
      expect(result.code, result.output).toBe(0);
      expect(result.output).toContain(`signed in as ${account.email}`);
      expect(result.output).toContain("recalled: The user prefers concise answers with code first.");
      expect(result.output).toContain("sandbox printed 45");
      expect(result.output).toContain("[memory_not_found]");
    },
    generous,
  );
});
