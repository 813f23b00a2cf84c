/**
 * Running the real `cairn` binary (cli/cairn.ts under this Node 24) as a person would: its own
 * HOME and XDG_CONFIG_HOME in a temp folder, stdin for prompt answers, stdout and stderr captured,
 * the exit code returned. Nothing touches the real user's config.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { cliEntry } from "../mcp/mcp-harness.ts";

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliHome {
  home: string;
  configHome: string;
  configFile: string;
  /** Environment for a run with this home; `extra` adds or overrides variables. */
  environment(extra?: Record<string, string>): Record<string, string>;
  remove(): Promise<void>;
}

export async function createHome(): Promise<CliHome> {
  const home = await mkdtemp(join(tmpdir(), "cairn-cli-home-"));
  const configHome = join(home, "xdg");
  return {
    home,
    configHome,
    configFile: join(configHome, "cairn", "config.toml"),
    environment: (extra = {}) => ({
      PATH: process.env.PATH ?? "",
      HOME: home,
      XDG_CONFIG_HOME: configHome,
      ...extra,
    }),
    remove: () => rm(home, { recursive: true, force: true }),
  };
}

export interface RunOptions {
  env: Record<string, string>;
  /** Written to stdin, which is then closed. */
  input?: string;
  cwd?: string;
  command?: string[];
  /** Called with each piece of stdout as the process writes it (to act while it still runs). */
  onStdout?: (chunk: string) => void;
}

/** Runs `cairn args…` to its end. */
export function runCairn(args: string[], options: RunOptions): Promise<CliResult> {
  const [command, ...prefix] = options.command ?? [process.execPath, cliEntry];
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...prefix, ...args], {
      env: options.env,
      cwd: options.cwd,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      options.onStdout?.(String(chunk));
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.stdin.end(options.input ?? "");
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** A run that must succeed; its stdout parsed as JSON when asked. */
export async function runOk(args: string[], options: RunOptions): Promise<CliResult> {
  const result = await runCairn(args, options);
  expect(result.stderr, `cairn ${args.join(" ")}`).not.toMatch(/^Error:/m);
  expect(result.code, `cairn ${args.join(" ")}: ${result.stderr}`).toBe(0);
  return result;
}

export async function runJson<T = Record<string, unknown>>(args: string[], options: RunOptions): Promise<T> {
  const result = await runOk([...args, "--json"], options);
  return JSON.parse(result.stdout) as T;
}

/**
 * A failure with exactly this exit code and code (in brackets, or under `--json` in the error body
 * on one line), and no stack trace.
 */
export function expectFailure(result: CliResult, exitCode: number, code: string) {
  expect(result.code, result.stderr).toBe(exitCode);
  if (result.stderr.startsWith("{"))
    expect((JSON.parse(result.stderr) as { error: { code: string } }).error.code).toBe(code);
  else expect(result.stderr).toMatch(new RegExp(`^Error: .* \\[${code}\\]$`, "m"));
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

export const password = "correct horse battery";
export const newEmail = () => `cli-${crypto.randomUUID()}@example.com`;

/** Signs up through the CLI (prompts answered on stdin), leaving a saved URL and key. */
export async function signUpThroughCli(home: CliHome, baseUrl: string, email = newEmail()) {
  await runOk(["signup", "--url", baseUrl], {
    env: home.environment(),
    input: `${email}\n${password}\n${password}\n`,
  });
  return email;
}
