/** The input fields of an output budget (core/sandboxes/output-budget.ts), shared by exec, process_output and view. */
import { z } from "zod";
import { type OutputKeep, outputKeeps } from "../../sandboxes/output-budget.ts";

/** `max_output_bytes`: absent means no budget (REST's limits of today); MCP tools fill their own default. */
export function maxOutputBytesField(maximum: number, what: string) {
  return z
    .number()
    .int()
    .min(1)
    .max(maximum)
    .optional()
    .describe(
      `Keep at most this many bytes of ${what}; what is cut is replaced by a marker saying how many bytes and how to get them`,
    );
}

export function keepField(fallback: OutputKeep, reason: string) {
  return z
    .enum(outputKeeps)
    .default(fallback)
    .describe(`Which part a cut keeps: "head", "tail" or "both" (half each, the marker between); ${reason}`);
}
