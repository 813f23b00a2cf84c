/** One line for a failed call, in the CLI's words: `message [code]`, or `Network error: …`. */
import { CairnApiError, CairnConnectionError } from "cairn-client";

export function describeError(error: unknown): string {
  if (error instanceof CairnApiError) return `${error.message} [${error.code}]`;
  if (error instanceof CairnConnectionError) return `Network error: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
