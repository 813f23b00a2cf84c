/**
 * How the CLI fails: one line on stderr (`Error: <message> [<code>]`) and an exit code per error
 * class, so scripts can tell a wrong key from a missing sandbox without parsing text. Under
 * `--json` that line is the REST error body instead, `{"error": {code, message, retryable,
 * remediation, details?}}`. Expected errors never print a stack trace; only a bug (exit 1) shows
 * one, and only with CAIRN_DEBUG=1.
 */
import { CairnApiError, CairnConnectionError, CairnError } from "cairn-client";

/** The documented exit codes (docs/cli.md#exit-codes). `exec` exits with its command's code instead. */
export const exitCodes = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  authentication: 3,
  notFound: 4,
  forbidden: 5,
  conflict: 6,
  quota: 7,
  server: 8,
  network: 9,
} as const;

/** A failure the CLI itself detects (bad flag value, no config, no session). */
export class CliError extends Error {
  readonly code: string;
  readonly exitCode: number;
  constructor(message: string, code: string, exitCode: number = exitCodes.usage) {
    super(message);
    this.code = code;
    this.exitCode = exitCode;
  }
}

/** The exit code for an HTTP status from the server's error envelope. */
export function exitCodeForStatus(status: number): number {
  if (status === 401) return exitCodes.authentication;
  if (status === 403) return exitCodes.forbidden;
  if (status === 404) return exitCodes.notFound;
  if (status === 409) return exitCodes.conflict;
  if (status === 429) return exitCodes.quota;
  if (status >= 500) return exitCodes.server;
  if (status === 400 || status === 413 || status === 422) return exitCodes.usage;
  return exitCodes.unexpected;
}

/** A short hint for the codes a person can act on at once. */
function hintFor(error: CairnApiError): string | null {
  if (error.statusCode === 401 && error.code !== "invalid_credentials") {
    // A key exported in the shell wins over the saved one, so logging in again would not help.
    if (process.env.CAIRN_API_KEY)
      return "This key comes from CAIRN_API_KEY, which overrides the key `cairn login` saves: unset it (`unset CAIRN_API_KEY`) or set it to a valid key.";
    if (error.code === "missing_credentials")
      return "No API key yet: run `cairn login` (or `cairn signup`), or set CAIRN_API_KEY.";
    return "Log in again with `cairn login`, or set CAIRN_API_KEY.";
  }
  if (error.retryAfterSeconds !== null && error.statusCode === 429)
    return `Try again in ${error.retryAfterSeconds} s.`;
  return error.remediation;
}

function validationDetails(error: CairnApiError): string {
  if (error.code !== "validation_error" || !Array.isArray(error.details)) return "";
  const parts = (error.details as Array<{ loc?: unknown[]; msg?: string }>).map(
    (item) => `${(item.loc ?? []).filter((part) => part !== "body").join(".")}: ${item.msg ?? ""}`,
  );
  return parts.length ? ` (${parts.join("; ")})` : "";
}

export interface ReportedError {
  lines: string[];
  exitCode: number;
}

let errorsAsJson = false;

/** Set once the command is parsed: a command run with `--json` reports its errors as JSON. */
export function reportErrorsAsJson(json: boolean): void {
  errorsAsJson = json;
}

interface ErrorBody {
  code: string;
  message: string;
  retryable: boolean;
  remediation: string | null;
  details?: unknown;
}

/** The same failure as `describeError`'s text, as the REST error body (docs/cli.md#errors-and-exit-codes). */
function errorBody(error: unknown, text: ReportedError): ErrorBody {
  if (error instanceof CliError)
    return { code: error.code, message: error.message, retryable: false, remediation: null };
  if (error instanceof CairnApiError)
    return {
      code: error.code,
      message: error.message,
      retryable: error.retryable,
      remediation: hintFor(error),
      ...(error.details === undefined || error.details === null ? {} : { details: error.details }),
    };
  const hint = text.lines.find((line) => line.startsWith("Hint: "))?.slice("Hint: ".length) ?? null;
  if (error instanceof CairnConnectionError)
    return { code: "network_error", message: error.message, retryable: true, remediation: hint };
  const [, message = text.lines[0], code = "unexpected"] =
    /^Error: ([\s\S]*) \[([a-z_]+)\]$/.exec(text.lines[0]) ?? [];
  return { code, message, retryable: false, remediation: hint };
}

/** The lines to print on stderr and the exit code for anything a command threw. */
export function describeError(error: unknown): ReportedError {
  const text = describeErrorAsText(error);
  if (!errorsAsJson) return text;
  return { lines: [JSON.stringify({ error: errorBody(error, text) })], exitCode: text.exitCode };
}

function describeErrorAsText(error: unknown): ReportedError {
  if (error instanceof CliError)
    return { lines: [`Error: ${error.message} [${error.code}]`], exitCode: error.exitCode };
  if (error instanceof CairnApiError) {
    const lines = [`Error: ${error.message}${validationDetails(error)} [${error.code}]`];
    const hint = hintFor(error);
    if (hint) lines.push(`Hint: ${hint}`);
    return { lines, exitCode: exitCodeForStatus(error.statusCode) };
  }
  if (error instanceof CairnConnectionError) {
    const lines = [`Network error: ${error.message}`];
    if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN/.test(error.message))
      lines.push(
        "Hint: no Cairn server answers there. Start one (`npm start` in a Cairn checkout), or point the CLI at yours with --url, CAIRN_BASE_URL or `cairn config set-url`.",
      );
    return { lines, exitCode: exitCodes.network };
  }
  // The SDK's own refusals (a base URL that breaks the https rule) are configuration mistakes.
  if (error instanceof CairnError)
    return { lines: [`Error: ${error.message} [invalid_config]`], exitCode: exitCodes.usage };
  if (error instanceof Error && error.name === "ExitPromptError")
    return { lines: ["Error: cancelled [cancelled]"], exitCode: 130 };
  const detail =
    error instanceof Error
      ? process.env.CAIRN_DEBUG
        ? (error.stack ?? error.message)
        : error.message
      : String(error);
  return { lines: [`Error: ${detail} [unexpected]`], exitCode: exitCodes.unexpected };
}
