/**
 * What a person sees: aligned tables, relative times, colour only where it helps and only on a
 * terminal (NO_COLOR and a pipe turn it off, FORCE_COLOR turns it on), a spinner on waits and a
 * progress line on long transfers, both on stderr so stdout stays clean for `--json` and pipes.
 */
import { stripVTControlCharacters } from "node:util";
import picocolors from "picocolors";

const colourAllowed = (stream: NodeJS.WriteStream) =>
  !process.env.NO_COLOR &&
  (Boolean(process.env.FORCE_COLOR) || (stream.isTTY === true && process.env.TERM !== "dumb"));

export const colour = picocolors.createColors(colourAllowed(process.stdout));
export const errorColour = picocolors.createColors(colourAllowed(process.stderr));

export function printLine(text = ""): void {
  process.stdout.write(`${text}\n`);
}

/** The API's JSON as it is, pretty-printed (what `--json` prints). */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value ?? null, null, 2)}\n`);
}

/** "3 minutes ago", "in 25 minutes", or "-" for no time. */
export function relativeTime(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return "-";
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  const seconds = Math.round((then - now) / 1000);
  const size = Math.abs(seconds);
  const units: Array<[number, string]> = [
    [86_400 * 365, "year"],
    [86_400 * 30, "month"],
    [86_400, "day"],
    [3600, "hour"],
    [60, "minute"],
  ];
  let text = "just now";
  if (size >= 45) {
    const [unitSeconds, name] = units.find(([length]) => size >= length) ?? [60, "minute"];
    const count = Math.max(1, Math.round(size / unitSeconds));
    text = `${count} ${name}${count === 1 ? "" : "s"}`;
    text = seconds < 0 ? `${text} ago` : `in ${text}`;
  } else if (size >= 5) text = seconds < 0 ? `${size} seconds ago` : `in ${size} seconds`;
  return text;
}

// ANSI escapes take no columns; measure what shows.
const visibleLength = (text: string) => stripVTControlCharacters(text).length;

/** Columns padded to their widest cell, a dim header, and a line saying so when there are no rows. */
export function printTable(headers: string[], rows: string[][], empty = "Nothing to show."): void {
  if (rows.length === 0) {
    printLine(colour.dim(empty));
    return;
  }
  const widths = headers.map((header, column) =>
    Math.max(visibleLength(header), ...rows.map((row) => visibleLength(row[column] ?? ""))),
  );
  const format = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === cells.length - 1 ? cell : cell + " ".repeat(widths[column] - visibleLength(cell)),
      )
      .join("  ")
      .trimEnd();
  printLine(colour.bold(format(headers)));
  for (const row of rows) printLine(format(row));
}

/** Label/value pairs, labels aligned: the shape of every `get` command. */
export function printFields(fields: Array<[string, string | number | boolean | null | undefined]>): void {
  const width = Math.max(...fields.map(([label]) => label.length));
  for (const [label, value] of fields)
    printLine(
      `${colour.dim(`${label}:`.padEnd(width + 1))} ${value === null || value === undefined || value === "" ? "-" : String(value)}`,
    );
}

/** Green for good states, yellow for in-between, red for bad ones. */
export function statusText(status: string): string {
  if (["active", "completed", "ready"].includes(status)) return colour.green(status);
  if (["failed", "destroyed", "revoked", "deleting"].includes(status)) return colour.red(status);
  return colour.yellow(status);
}

export function success(text: string): void {
  printLine(`${colour.green("✔")} ${text}`);
}

/** Notes meant for a person (progress, warnings) go to stderr, never into piped output. */
export function note(text: string): void {
  process.stderr.write(`${text}\n`);
}

const spinnerFrames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export interface Spinner {
  update(text: string): void;
  stop(finalText?: string): void;
}

/**
 * A spinner on stderr while waiting. Off a terminal it prints each new text once as a line, so
 * a log shows the steps without a hundred redraws.
 */
export function startSpinner(text: string): Spinner {
  const stream = process.stderr;
  let current = text;
  if (!stream.isTTY) {
    note(current);
    return {
      update(next) {
        if (next !== current) note(next);
        current = next;
      },
      stop(finalText) {
        if (finalText) note(finalText);
      },
    };
  }
  let frame = 0;
  const draw = () =>
    stream.write(`\r\x1b[2K${errorColour.cyan(spinnerFrames[frame++ % spinnerFrames.length])} ${current}`);
  draw();
  const timer = setInterval(draw, 80);
  return {
    update(next) {
      current = next;
    },
    stop(finalText) {
      clearInterval(timer);
      stream.write("\r\x1b[2K");
      if (finalText) note(finalText);
    },
  };
}

/** "label 3/10 (30%)" redrawn in place on a terminal; one line per step elsewhere. */
export function createProgress(label: string, total: number) {
  const stream = process.stderr;
  return {
    update(done: number) {
      const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
      const text = `${label} ${done}/${total} (${percent}%)`;
      if (stream.isTTY) stream.write(`\r\x1b[2K${text}`);
      else note(text);
    },
    done() {
      if (stream.isTTY) stream.write("\n");
    },
  };
}
