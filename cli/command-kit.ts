/** Small helpers every command file shares: a command with `--json` and examples, and input readers. */
import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { CliError } from "./errors.ts";

/** Examples under `--help`, the way people learn a command. */
export function withExamples(command: Command, examples: string[]): Command {
  return command.addHelpText(
    "after",
    `\nExamples:\n${examples.map((example) => `  $ ${example}`).join("\n")}`,
  );
}

/** A runnable command: `--json` on every one, and its examples. */
export function leaf(
  parent: Command,
  nameAndArguments: string,
  description: string,
  examples: string[],
): Command {
  const command = parent
    .command(nameAndArguments)
    .description(description)
    .option("--json", "print the API's JSON instead of a table");
  return withExamples(command, examples);
}

/** A group of commands (`cairn session …`); its help lists them with examples. */
export function group(parent: Command, name: string, description: string, examples: string[]): Command {
  return withExamples(parent.command(name).description(description), examples);
}

/** All of stdin as text (for `memory ingest`, `memory import -`). */
export async function readStdin(): Promise<string> {
  return (await readStdinBytes()).toString("utf8");
}

/** All of stdin as bytes, exactly (for `files create`). */
export async function readStdinBytes(): Promise<Buffer> {
  if (process.stdin.isTTY)
    throw new CliError("nothing on stdin: pass a file or pipe the content in", "missing_input");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A file's text, `-` meaning stdin; a missing file is a usage error, not a crash. */
export async function readInputFile(path: string): Promise<string> {
  return (await readInputBytes(path)).toString("utf8");
}

/** A file's bytes, exactly, `-` meaning stdin. */
export async function readInputBytes(path: string): Promise<Buffer> {
  if (path === "-") return readStdinBytes();
  try {
    return await readFile(path);
  } catch (error) {
    throw new CliError(
      `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      "missing_input",
    );
  }
}

export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(`${what} is not valid JSON: ${(error as Error).message}`, "invalid_json");
  }
}
