/**
 * Asking a person for what a flag did not give. On a terminal the prompts come from
 * @inquirer/prompts (hidden input for passwords), drawn on stderr so stdout stays clean. From a
 * pipe, answers are read one line each from stdin: @inquirer's readline reads ahead and loses the
 * lines meant for later prompts, so `printf 'me@x\npw\npw\n' | cairn signup` needs this reader.
 */
import { createInterface, type Interface } from "node:readline";
import { CliError } from "./errors.ts";

let lineReader: { reader: Interface; lines: AsyncIterator<string> } | null = null;

const interactive = () => process.stdin.isTTY === true && process.stderr.isTTY === true;

async function readAnswerLine(message: string): Promise<string> {
  process.stderr.write(`${message}: `);
  if (!lineReader) {
    const reader = createInterface({ input: process.stdin, terminal: false });
    lineReader = { reader, lines: reader[Symbol.asyncIterator]() };
  }
  const next = await lineReader.lines.next();
  process.stderr.write("\n");
  if (next.done) throw new CliError(`no answer for "${message}" on stdin`, "missing_input");
  return next.value;
}

/** Lets the process end once the last prompt is answered. */
export function closePrompts(): void {
  lineReader?.reader.close();
  lineReader = null;
}

export async function askText(message: string, validate?: (value: string) => string | true): Promise<string> {
  if (interactive()) {
    // Loaded only for a person at a terminal: it costs every other command start-up time.
    const { input } = await import("@inquirer/prompts");
    return input({ message, validate }, { output: process.stderr });
  }
  const answer = (await readAnswerLine(message)).trim();
  const verdict = validate?.(answer) ?? true;
  if (verdict !== true) throw new CliError(`${message}: ${verdict}`, "validation_error");
  return answer;
}

export async function askSecret(
  message: string,
  validate?: (value: string) => string | true,
): Promise<string> {
  if (interactive()) {
    const { password } = await import("@inquirer/prompts");
    return password({ message, mask: "*", validate }, { output: process.stderr });
  }
  const answer = await readAnswerLine(message);
  const verdict = validate?.(answer) ?? true;
  if (verdict !== true) throw new CliError(`${message}: ${verdict}`, "validation_error");
  return answer;
}

/** A secret typed twice; a mismatch is an error rather than a silently wrong password. */
export async function askNewSecret(
  message: string,
  validate?: (value: string) => string | true,
): Promise<string> {
  const first = await askSecret(message, validate);
  const second = await askSecret(`Confirm ${message.toLowerCase()}`);
  if (first !== second) throw new CliError("the two entries do not match", "validation_error");
  return first;
}
