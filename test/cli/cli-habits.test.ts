/**
 * CLI habits (issue 44), with the real binary against a live server: `keys create|ls|rm` on the
 * dashboard token the last login saved (a password only once it expires or is refused), `login`
 * revoking the key the previous login saved unless `--keep-previous-key`, completion scripts
 * run by real bash, zsh and fish, errors under `--json` as the REST error body on stderr, and
 * recall's "semantic search unavailable" warning on stderr in plain output.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { parse, stringify } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEntry, type LiveServer, startLiveServer } from "../mcp/mcp-harness.ts";
import { eventually } from "../support/eventually.ts";
import { freePort } from "../support/processes.ts";
import {
  type CliHome,
  createHome,
  expectFailure,
  password,
  runCairn,
  runJson,
  runOk,
  signUpThroughCli,
} from "./cli-harness.ts";

const run = promisify(execFile);
const hasCommand = (name: string) => {
  try {
    execFileSync("sh", ["-c", `command -v ${name}`]);
    return true;
  } catch {
    return false;
  }
};

let server: LiveServer;
const homes: CliHome[] = [];
async function home() {
  const created = await createHome();
  homes.push(created);
  return created;
}

beforeAll(async () => {
  // Semantic search on, with no model server where it points: recall answers with a warning.
  server = await startLiveServer({
    SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000",
    SVC_MEMORY_EMBEDDINGS_ENABLED: "true",
    SVC_MEMORY_EMBEDDING_BASE_URL: `http://127.0.0.1:${await freePort()}/v1`,
  });
}, 60_000);
afterAll(async () => {
  await server.close();
  await Promise.all(homes.map((created) => created.remove()));
});

type Key = { id: string; name: string; revoked_at: string | null };
const saved = async (cli: CliHome) => parse(await readFile(cli.configFile, "utf8")) as Record<string, string>;

describe("keys on the saved dashboard token", () => {
  it("creates, lists and revokes keys after signup without asking for a password", async () => {
    const cli = await home();
    await signUpThroughCli(cli, server.baseUrl);
    const config = await saved(cli);
    expect(config.dashboard_token).toEqual(expect.any(String));
    expect(Date.parse(config.dashboard_token_expires_at)).toBeGreaterThan(Date.now());
    expect((await stat(cli.configFile)).mode & 0o777).toBe(0o600);

    // No stdin at all: a prompt would end the command with missing_input.
    const created = await runJson<Key & { key: string }>(["keys", "create", "--name", "ci"], {
      env: cli.environment(),
    });
    expect(created.key).toMatch(/^cairn_[0-9A-Za-z]{38}$/);
    expect(created.name).toBe("ci");
    const plain = await runOk(["keys", "create", "--name", "laptop"], { env: cli.environment() });
    expect(plain.stdout).toMatch(/Key:\s+cairn_[0-9A-Za-z]{38}/);
    expect(plain.stderr).not.toContain("Password:");

    const listed = await runJson<Key[]>(["keys", "ls"], { env: cli.environment() });
    expect(listed.map((key) => key.name)).toEqual(["laptop", "ci", "cairn-cli"]);
    const revoked = await runJson(["keys", "rm", created.id], { env: cli.environment() });
    expect(revoked).toEqual({ status: "revoked", id: created.id });
    // The config's own key is untouched: whoami still works.
    await runOk(["whoami"], { env: cli.environment() });
  });

  it("asks for the password again once the token has expired, and saves the new one", async () => {
    const cli = await home();
    const email = await signUpThroughCli(cli, server.baseUrl);
    const config = await saved(cli);
    await writeFile(
      cli.configFile,
      stringify({ ...config, dashboard_token_expires_at: new Date(Date.now() - 1000).toISOString() }),
    );
    const refused = await runCairn(["keys", "ls"], { env: cli.environment() });
    expectFailure(refused, 2, "missing_input");
    const listed = await runOk(["keys", "ls", "--json"], {
      env: cli.environment(),
      input: `${email}\n${password}\n`,
    });
    expect(listed.stderr).toContain("Password:");
    const renewed = await saved(cli);
    expect(Date.parse(renewed.dashboard_token_expires_at)).toBeGreaterThan(Date.now());
    await runJson(["keys", "ls"], { env: cli.environment() });
  });

  it("logs in again when the server refuses the saved token", async () => {
    const cli = await home();
    const email = await signUpThroughCli(cli, server.baseUrl);
    await writeFile(cli.configFile, stringify({ ...(await saved(cli)), dashboard_token: "not.a.token" }));
    const listed = await runOk(["keys", "ls", "--json"], {
      env: cli.environment(),
      input: `${email}\n${password}\n`,
    });
    expect(JSON.parse(listed.stdout)).toHaveLength(1);
    expect((await saved(cli)).dashboard_token).not.toBe("not.a.token");
  });
});

describe("login replaces the key the previous login saved", () => {
  it("leaves one active key after three logins, and two with --keep-previous-key", async () => {
    const cli = await home();
    const email = await signUpThroughCli(cli, server.baseUrl);
    const credentials = ["--email", email, "--password", password];
    let previous = (await saved(cli)).api_key_id;
    for (let login = 0; login < 3; login++) {
      const answer = await runJson<{ api_key: { id: string }; revoked_api_key_id: string | null }>(
        ["login", ...credentials],
        { env: cli.environment() },
      );
      expect(answer.revoked_api_key_id).toBe(previous);
      expect((await saved(cli)).api_key_id).toBe(answer.api_key.id);
      previous = answer.api_key.id;
    }
    const active = async () =>
      (await runJson<Key[]>(["keys", "ls"], { env: cli.environment() })).filter((key) => !key.revoked_at);
    expect((await active()).map((key) => key.id)).toEqual([previous]);
    await runOk(["whoami"], { env: cli.environment() });

    const kept = await runOk(["login", ...credentials, "--keep-previous-key"], { env: cli.environment() });
    expect(kept.stdout).not.toContain("Revoked");
    expect(await active()).toHaveLength(2);
  });

  it("does not revoke a key saved by hand with config set-key", async () => {
    const cli = await home();
    const email = await signUpThroughCli(cli, server.baseUrl);
    const extra = await runJson<{ id: string; key: string }>(["keys", "create", "--name", "by-hand"], {
      env: cli.environment(),
    });
    await runOk(["config", "set-key", extra.key], { env: cli.environment() });
    const login = await runJson<{ revoked_api_key_id: string | null }>(
      ["login", "--email", email, "--password", password],
      { env: cli.environment() },
    );
    expect(login.revoked_api_key_id).toBeNull();
    const keys = await runJson<Key[]>(["keys", "ls"], { env: cli.environment() });
    expect(keys.find((key) => key.id === extra.id)?.revoked_at).toBeNull();
  });
});

describe("errors under --json", () => {
  it("are the REST error body, one JSON line on stderr, with the same exit code", async () => {
    const cli = await home();
    await signUpThroughCli(cli, server.baseUrl);
    const missing = crypto.randomUUID();
    const json = await runCairn(["memory", "get", missing, "--json"], { env: cli.environment() });
    expect(json.code).toBe(4);
    expect(json.stdout).toBe("");
    expect(json.stderr.endsWith("\n")).toBe(true);
    expect(json.stderr.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        code: "memory_not_found",
        message: expect.any(String),
        retryable: false,
        remediation: expect.toBeOneOf([expect.any(String), null]),
      },
    });
    const plain = await runCairn(["memory", "get", missing], { env: cli.environment() });
    expectFailure(plain, 4, "memory_not_found");
  });

  it("covers a mistake in the command line too (usage_error, exit 2)", async () => {
    const result = await runCairn(["keys", "ls", "--bogus", "--json"], { env: (await home()).environment() });
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stderr)).toEqual({
      error: {
        code: "usage_error",
        message: "unknown option '--bogus'",
        retryable: false,
        remediation: "Run `cairn keys ls --help` for the usage and examples.",
      },
    });
  });

  it("covers the CLI's own errors too (no API key saved: exit 3)", async () => {
    const cli = await home();
    const result = await runCairn(["whoami", "--json"], { env: cli.environment() });
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stderr)).toEqual({
      error: {
        code: "missing_credentials",
        message: expect.stringContaining("cairn login"),
        retryable: false,
        remediation: null,
      },
    });
  });
});

describe("warnings", () => {
  it("recall's 'semantic search unavailable' goes to stderr in plain output, stdout keeps the table", async () => {
    const cli = await home();
    await signUpThroughCli(cli, server.baseUrl);
    await runOk(["memory", "remember", "The deploy script lives in ops/deploy.sh"], {
      env: cli.environment(),
    });
    const plain = await runOk(["memory", "recall", "deploy"], { env: cli.environment() });
    expect(plain.stderr).toMatch(/^Warning: semantic search unavailable: .*results are lexical only$/m);
    expect(plain.stdout).toContain("ops/deploy.sh");
    expect(plain.stdout).not.toContain("semantic search");
    const json = await runJson<{ warnings: string[] }>(["memory", "recall", "deploy"], {
      env: cli.environment(),
    });
    expect(json.warnings[0]).toMatch(/^semantic search unavailable/);
  }, 30_000);
});

describe("completion", () => {
  let scripts: Record<string, string>;
  beforeAll(async () => {
    const cli = await home();
    scripts = {};
    for (const shell of ["bash", "zsh", "fish"]) {
      const result = await runOk(["completion", shell], { env: cli.environment() });
      scripts[shell] = join(cli.home, `cairn.${shell}`);
      await writeFile(scripts[shell], result.stdout);
    }
  });

  it.runIf(hasCommand("tmux"))(
    "completes on Tab in an interactive bash in a real terminal",
    async () => {
      const cli = await home();
      // `cairn` on PATH, as an install puts it.
      const bin = join(cli.home, "bin");
      await mkdir(bin);
      await writeFile(join(bin, "cairn"), `#!/bin/sh\nexec ${process.execPath} ${cliEntry} "$@"\n`, {
        mode: 0o755,
      });
      const socket = `cairn-completion-${process.pid}`;
      const tmux = (...args: string[]) => run("tmux", ["-L", socket, ...args]);
      const environment = `env -i HOME=${cli.home} XDG_CONFIG_HOME=${cli.configHome} TERM=xterm PATH=${bin}:/usr/bin:/bin`;
      try {
        await tmux(
          "new-session",
          "-d",
          "-s",
          "bash",
          "-x",
          "120",
          "-y",
          "20",
          `${environment} bash --norc --noprofile -i`,
        );
        await tmux("send-keys", "-t", "bash", "-l", 'eval "$(cairn completion bash)"');
        await tmux("send-keys", "-t", "bash", "Enter");
        await tmux("send-keys", "-t", "bash", "-l", "cairn keys cr");
        await tmux("send-keys", "-t", "bash", "Tab");
        // Waits for the completed line on the screen (a condition, polled), never for a time.
        const screen = await eventually(async () => {
          const shown = (await tmux("capture-pane", "-p", "-t", "bash")).stdout;
          return /# cairn keys create\s*$/m.test(shown) ? shown : undefined;
        });
        expect(screen).toMatch(/# cairn keys create\s*$/m);
      } finally {
        await tmux("kill-server").catch(() => {});
      }
    },
    30_000,
  );

  it("refuses a shell it does not know (exit 2)", async () => {
    const result = await runCairn(["completion", "tcsh"], { env: (await home()).environment() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Allowed choices are bash, zsh, fish");
  });

  it("completes commands, subcommands, flags and flag choices in bash", async () => {
    const complete = async (...words: string[]) => {
      const script = `source ${scripts.bash}; COMP_WORDS=(${words.map((word) => `'${word}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _cairn; printf '%s\\n' "\${COMPREPLY[@]}"`;
      return (await run("bash", ["-c", script])).stdout.split("\n").filter(Boolean);
    };
    expect(await complete("cairn", "ke")).toEqual(["keys"]);
    expect(await complete("cairn", "keys", "")).toEqual(["create", "ls", "rm"]);
    expect(await complete("cairn", "keys", "create", "--n")).toEqual(["--name"]);
    expect(await complete("cairn", "login", "--k")).toEqual(["--key-name", "--keep-previous-key"]);
    expect(await complete("cairn", "session", "create", "--size", "")).toEqual(["small", "medium", "large"]);
    expect(await complete("cairn", "completion", "")).toEqual(["bash", "zsh", "fish"]);
  });

  it.runIf(process.platform === "linux")(
    "completes the same tree in zsh and fish, where installed",
    async () => {
      const has = async (shell: string) =>
        run("sh", ["-c", `command -v ${shell}`]).then(
          () => true,
          () => false,
        );
      if (await has("zsh")) {
        // The completion system's builtins stubbed to print what they were given.
        const script = `source ${scripts.zsh}
_describe() { local name=\${@[-1]}; print -rl -- \${(P)name} }
compadd() { shift; print -rl -- "$@" }
_files() { print -r -- "<files>" }
words=(cairn keys ""); CURRENT=3; _cairn
words=(cairn session create --size ""); CURRENT=5; _cairn
words=(cairn files view ""); CURRENT=4; _cairn`;
        const lines = (await run("zsh", ["-f", "-c", script])).stdout.split("\n").filter(Boolean);
        expect(lines).toEqual([
          expect.stringMatching(/^create:Create an API key/),
          expect.stringMatching(/^ls:/),
          expect.stringMatching(/^rm:/),
          "small",
          "medium",
          "large",
          "<files>",
        ]);
      }
      if (await has("fish")) {
        const complete = async (line: string) =>
          (await run("fish", ["--no-config", "-c", `source ${scripts.fish}; complete -C '${line}'`])).stdout
            .split("\n")
            .filter(Boolean)
            .map((entry) => entry.split("\t")[0]);
        expect(await complete("cairn keys ")).toEqual(["create", "ls", "rm"]);
        expect(await complete("cairn login --keep")).toEqual(["--keep-previous-key"]);
        expect((await complete("cairn session create --size ")).sort()).toEqual(["large", "medium", "small"]);
      }
    },
  );
});
