/**
 * The command tree. Parser errors (unknown command or option, missing argument, a value outside
 * a flag's choices) print `cairn: <problem>` and the usage line of the command at fault, exit 2.
 */
import { Command, CommanderError } from "commander";
import { version } from "../core/version.ts";
import { withExamples } from "./command-kit.ts";
import { addAccountCommands } from "./commands/account.ts";
import { addCompletionCommand } from "./commands/completion.ts";
import { addConfigCommands } from "./commands/config.ts";
import { addCopyCommand } from "./commands/copy.ts";
import { addFileCommands } from "./commands/files.ts";
import { addImageAndVolumeCommands } from "./commands/images-and-volumes.ts";
import { addMcpCommands } from "./commands/mcp.ts";
import { addMemoryCommands } from "./commands/memory.ts";
import { addPreviewCommands } from "./commands/previews-and-attach.ts";
import { addProcessCommands } from "./commands/processes.ts";
import { addSecretAndAllowlistCommands } from "./commands/secrets-and-allowlist.ts";
import { addSessionCommands } from "./commands/sessions.ts";
import { addSnapshotAndActivityCommands } from "./commands/snapshots-and-activity.ts";
import { addToolCommands } from "./commands/tools.ts";
import { addTuiCommand } from "./commands/tui.ts";
import { exitCodes, reportErrorsAsJson } from "./errors.ts";

function fullName(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current; current = current.parent)
    names.unshift(current.name());
  return names.join(" ");
}

const usageLine = (command: Command) => `Usage: ${fullName(command)} ${command.usage()}`;

function descendants(command: Command): Command[] {
  return command.commands.flatMap((child) => [child, ...descendants(child)]);
}

/** The error text for a parser failure in `command`; an unknown word that names a deeper command points there. */
function parserError(command: Command, text: string): string {
  const problem = text.trim().replace(/^error: /, "");
  const unknown = problem.match(/^unknown command '(.+?)'/);
  if (unknown) {
    const nested = descendants(command).find((candidate) => candidate.name() === unknown[1]);
    const hint = nested
      ? `\nDid you mean \`${fullName(nested)}\`?`
      : `\nRun \`${fullName(command)} --help\` for the commands.`;
    return `cairn: unknown command: ${unknown[1]}\n${usageLine(nested ?? command)}${hint}\n`;
  }
  return `cairn: ${problem}\n${usageLine(command)}\nRun \`${fullName(command)} --help\` for examples.\n`;
}

/** `--json` among cairn's own words (before a `--`): a parser error is then JSON too. */
function jsonRequested(): boolean {
  const words = process.argv.slice(2);
  const end = words.indexOf("--");
  return (end === -1 ? words : words.slice(0, end)).includes("--json");
}

/** A parser failure as the error body `--json` errors use (cli/errors.ts), code `usage_error`. */
function parserErrorJson(command: Command, text: string): string {
  const message = text.trim().replace(/^error: /, "");
  const error = {
    code: "usage_error",
    message,
    retryable: false,
    remediation: `Run \`${fullName(command)} --help\` for the usage and examples.`,
  };
  return `${JSON.stringify({ error })}\n`;
}

export function buildProgram(): Command {
  const program = new Command("cairn")
    .description(
      "Cairn from the terminal: memory, sandboxes, files, images, volumes, secrets, tools and MCP set-up",
    )
    .version(version, "-V, --version")
    .enablePositionalOptions()
    .showSuggestionAfterError(false)
    .exitOverride();
  withExamples(program, [
    "cairn signup",
    "cairn session create && cairn exec 'python3 -c \"print(1+1)\"'",
    'cairn memory remember "The user prefers dark mode" --kind preference',
    "cairn mcp init claude-code",
    "cairn <command> --help",
  ]);
  program.addHelpText(
    "after",
    "\nSettings: CAIRN_BASE_URL and CAIRN_API_KEY override ~/.config/cairn/config.toml.\nExit codes: 0 ok, 1 failed, 2 usage, 3 auth, 4 not found, 5 forbidden, 6 conflict, 7 quota/rate limit, 8 server, 9 network.\n",
  );
  addAccountCommands(program);
  addConfigCommands(program);
  addSessionCommands(program);
  addProcessCommands(program);
  addPreviewCommands(program);
  addSnapshotAndActivityCommands(program);
  addFileCommands(program);
  addCopyCommand(program);
  addSecretAndAllowlistCommands(program);
  addImageAndVolumeCommands(program);
  addMemoryCommands(program);
  addToolCommands(program);
  addMcpCommands(program);
  addTuiCommand(program);
  addCompletionCommand(program);
  for (const command of [program, ...descendants(program)]) {
    command.configureOutput({
      outputError: (text, write) =>
        write(jsonRequested() ? parserErrorJson(command, text) : parserError(command, text)),
    });
  }
  // Errors of a command run with --json are JSON on stderr (cli/errors.ts).
  program.hook("preAction", (_program, action) => reportErrorsAsJson(action.opts().json === true));
  return program;
}

/** The exit code for a parser outcome: 0 for --help and --version, 2 for every usage error. */
export function parserExitCode(error: CommanderError): number {
  if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return exitCodes.ok;
  return exitCodes.usage;
}

export { CommanderError };
