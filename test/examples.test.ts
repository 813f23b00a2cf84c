/** Every runnable story under examples/ runs against a real server and says what it should. */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, signUpWithKey, startServer } from "./support/processes.ts";

const root = resolve(import.meta.dirname, "..");
const run = promisify(execFile);

describe("examples", () => {
  let server: RunningServer;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "cairn-examples-"));
    server = await startServer(process.execPath, [join(root, "platform/serve.ts")], {
      SVC_DATA_DIR: dataDir,
      SVC_LOG_LEVEL: "warn",
    });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("quickstart: signup, memory, sandbox", async () => {
    const { stdout } = await run(process.execPath, [join(root, "examples/quickstart/quickstart.ts")], {
      env: { ...process.env, CAIRN_BASE_URL: server.baseUrl },
    });
    expect(stdout).toContain("created an API key");
    expect(stdout).toContain("recalled: The team prefers pnpm over npm for new projects.");
    expect(stdout).toContain("sandbox said: hello from sandbox (exit 0)");
    expect(stdout).toContain("sandbox destroyed");
  });

  it("js-sdk: the JavaScript SDK's quickstart, with an API key", async () => {
    const { key } = await signUpWithKey(server.baseUrl);
    // The SDK from its source (the `cairn-source` export condition), not a build that may be stale.
    const quickstart = join(root, "examples/js-sdk/quickstart.ts");
    const { stdout } = await run(process.execPath, ["--conditions=cairn-source", quickstart], {
      env: { ...process.env, CAIRN_BASE_URL: server.baseUrl, CAIRN_API_KEY: key },
    });
    expect(stdout).toContain("recalled: The release train leaves every second Wednesday.");
    expect(stdout).toContain("sandbox said: 55 (exit 0)");
    expect(stdout).toMatch(/sandbox [0-9a-f-]{36} destroyed: true/);
    expect(stdout).toContain("forgot the fact");
  });

  it("quickstart refuses a plain-http base URL that is not local", async () => {
    const failure = await run(process.execPath, [join(root, "examples/quickstart/quickstart.ts")], {
      env: { ...process.env, CAIRN_BASE_URL: "http://cairn.example.com" },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stderr: string }).stderr).toContain("Refusing http://cairn.example.com");
  });
});
