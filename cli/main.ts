/**
 * The `cairn` command's program. Every failure ends here: one `Error: <message> [<code>]` line on
 * stderr and the exit code of its class (cli/errors.ts). With no arguments it opens the TUI in a
 * terminal and prints the help elsewhere. Started by cli/bin/cairn.js from the built bundle
 * (cli/dist, any Node 20+), or from source by cli/cairn.ts (Node 24).
 */
import { startTui } from "./commands/tui.ts";
import { describeError } from "./errors.ts";
import { errorColour } from "./output.ts";
import { buildProgram, CommanderError, parserExitCode } from "./program.ts";
import { closePrompts } from "./prompts.ts";

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    if (argv.length === 0) {
      if (process.stdin.isTTY && process.stdout.isTTY) await startTui();
      else program.outputHelp();
      return 0;
    }
    await program.parseAsync(argv, { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return parserExitCode(error);
    const reported = describeError(error);
    const [first, ...rest] = reported.lines;
    process.stderr.write(`${errorColour.red(first)}\n`);
    for (const line of rest) process.stderr.write(`${errorColour.dim(line)}\n`);
    return reported.exitCode;
  } finally {
    closePrompts();
  }
}

// A reader that stopped early (`cairn memory ls | head`) is not an error worth a stack trace.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

process.exitCode = await main(process.argv.slice(2));
