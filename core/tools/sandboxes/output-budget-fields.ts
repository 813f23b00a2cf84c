/** The input fields of an output budget (core/sandboxes/output-budget.ts), shared by exec, process_output and view. */
import { z } from "zod";
import { type OutputKeep, outputKeeps } from "../../sandboxes/output-budget.ts";

/** `max_output_bytes`: absent means no budget (REST's limits of today); MCP tools fill their own default. */
export function maxOutputBytesField(maximum: number, what: string) {
  return z.number().int().min(1).max(maximum).optional().describe(`Bytes kept of ${what}`);
}

/** `keep`: which part of the output a cut keeps; `note` adds what the enum does not say. */
export function keepField(fallback: OutputKeep, note?: string) {
  return z
    .enum(outputKeeps)
    .default(fallback)
    .describe(note ? `What a cut keeps; ${note}` : "What a cut keeps");
}
