/**
 * One line for a failed call, in the CLI's own words (cli/errors.ts): `Error: <message> [<code>]`
 * or `Network error: …`, with its hint (e.g. how to log in again) after a dash.
 */
import { describeError as describeForCli } from "../errors.ts";

export function describeError(error: unknown): string {
  return describeForCli(error).lines.join(" — ");
}
