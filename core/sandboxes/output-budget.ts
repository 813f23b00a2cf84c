/**
 * Output fit for a model's context (issue 41): text cut to a byte budget, keeping its head, its
 * tail or both, on UTF-8 character boundaries, with a marker in the text where bytes were cut.
 * exec, process_output and view share it; each says in its marker how to get the rest.
 */
import type { KeptOutput } from "../ports/sandbox-runtime.ts";
import { headBudgetBytes, joinKeptOutput } from "./exec/kept-output.ts";

export const outputKeeps = ["head", "tail", "both"] as const;
export type OutputKeep = (typeof outputKeeps)[number];

/**
 * What the MCP tools keep when the client gives no budget: enough for an agent to act on (a
 * compiler's first error and the last lines of a test run) without crowding its context
 * (16 KiB is about 4,000 tokens). REST gives no default budget: its clients keep today's limits.
 */
export const mcpStreamBudgetBytes = 16 * 1024;
/** A file is what the agent asked to read: twice a stream's budget. */
export const mcpViewBudgetBytes = 32 * 1024;

/** Where the bytes of a text were cut: `[from, to)` in its UTF-8 bytes; empty when nothing was. */
export interface BudgetCut {
  /** Kept bytes before the cut (the head), decoded. */
  head: string;
  /** Kept bytes after the cut (the tail), decoded. */
  tail: string;
  from: number;
  to: number;
  /** `to - from`: the bytes left out. */
  omittedBytes: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const isContinuation = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80;

/** The largest cut ≤ `limit` that does not split a character. */
function headEnd(bytes: Uint8Array, limit: number): number {
  if (limit >= bytes.length) return bytes.length;
  let cut = Math.max(limit, 0);
  while (cut > 0 && isContinuation(bytes[cut])) cut--;
  return cut;
}

/** The smallest start ≥ `bytes.length - limit` that does not split a character. */
function tailStart(bytes: Uint8Array, limit: number): number {
  let start = Math.max(bytes.length - Math.max(limit, 0), 0);
  while (start < bytes.length && isContinuation(bytes[start])) start++;
  return start;
}

/**
 * The cut that keeps at most `budget` bytes of `bytes`: its first bytes (`head`), its last
 * (`tail`) or half of each (`both`, the head taking the odd byte). Never splits a character, so
 * the kept bytes may be up to 3 fewer than the budget.
 */
export function cutBytes(bytes: Uint8Array, budget: number, keep: OutputKeep): BudgetCut {
  if (bytes.length <= budget) {
    return { head: decoder.decode(bytes), tail: "", from: bytes.length, to: bytes.length, omittedBytes: 0 };
  }
  const headBudget = keep === "head" ? budget : keep === "tail" ? 0 : Math.ceil(budget / 2);
  const from = headEnd(bytes, headBudget);
  const to = Math.max(tailStart(bytes, budget - headBudget), from);
  return {
    head: decoder.decode(bytes.subarray(0, from)),
    tail: decoder.decode(bytes.subarray(to)),
    from,
    to,
    omittedBytes: to - from,
  };
}

/** `cutBytes` of a text's UTF-8 bytes. */
export function cutText(text: string, budget: number, keep: OutputKeep): BudgetCut & { bytes: Uint8Array } {
  const bytes = encoder.encode(text);
  return { ...cutBytes(bytes, budget, keep), bytes };
}

/** The text with the marker where it was cut, or the text itself when nothing was. */
export function joinCut(cut: Pick<BudgetCut, "head" | "tail" | "omittedBytes">, marker: string): string {
  return cut.omittedBytes === 0 ? cut.head + cut.tail : `${cut.head}\n… [${marker}] …\n${cut.tail}`;
}

/** 123456 as "123,456": counts in markers are read by people and models alike. */
export function formatCount(value: number): string {
  return value.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** How many line feeds `bytes` holds in `[from, to)`. */
export function countLineFeeds(bytes: Uint8Array, from: number, to: number): number {
  let count = 0;
  for (let index = from; index < to; index++) if (bytes[index] === 0x0a) count++;
  return count;
}

/**
 * `cutBytes` of an output of which a runtime kept only the head and the tail under this budget
 * (core/sandboxes/exec/kept-output.ts): the same cut, on the same character boundaries, with
 * offsets in the whole output.
 */
export function cutKeptOutput(kept: KeptOutput, budget: number, keep: OutputKeep): BudgetCut {
  const whole = joinKeptOutput(kept);
  if (whole.length === kept.totalBytes) return cutBytes(whole, budget, keep);
  const headBudget = headBudgetBytes({ maxBytes: budget, keep });
  // The head holds one byte past its budget, so headEnd sees whether the cut splits a character.
  const from = headEnd(kept.head, headBudget);
  const tail = kept.tail.subarray(Math.max(kept.tail.length - (budget - headBudget), 0));
  const start = tailStart(tail, tail.length);
  const to = kept.totalBytes - (tail.length - start);
  return {
    head: decoder.decode(kept.head.subarray(0, from)),
    tail: decoder.decode(tail.subarray(start)),
    from,
    to,
    omittedBytes: to - from,
  };
}

const execMarker = (cut: BudgetCut, stream: "stdout" | "stderr") =>
  `cut ${formatCount(cut.omittedBytes)} bytes of ${stream} (bytes ${formatCount(cut.from)}–${formatCount(cut.to)}); run again with a larger max_output_bytes or another keep, or send the output to a file and view it with a view_range`;

/** One stream of an exec's result as a runtime kept it under the budget (ExecResult.output). */
export function budgetKeptExecStream(
  kept: KeptOutput,
  stream: "stdout" | "stderr",
  budget: number,
  keep: OutputKeep,
): { text: string; omittedBytes: number } {
  const cut = cutKeptOutput(kept, budget, keep);
  return { text: joinCut(cut, execMarker(cut, stream)), omittedBytes: cut.omittedBytes };
}

/** One stream of an exec's result within its budget (none: the stream as the runtime kept it). */
export function budgetExecStream(
  text: string,
  stream: "stdout" | "stderr",
  budget: number | undefined,
  keep: OutputKeep,
): { text: string; omittedBytes: number } {
  if (budget === undefined) return { text, omittedBytes: 0 };
  const cut = cutText(text, budget, keep);
  return { text: joinCut(cut, execMarker(cut, stream)), omittedBytes: cut.omittedBytes };
}

/** A page of a background process's output (core/sandboxes/processes/output-log.ts), as text per stream. */
export interface ProcessOutputText {
  stdout: string;
  stderr: string;
  /** Bytes of both streams left out between the head and the tail kept. */
  omittedBytes: number;
  /** `[from, to)` offsets of the log left out (read them from `since_offset` = from), or null. */
  omittedRange: [number, number] | null;
}

/**
 * A page's chunks within a budget: the whole page when it fits, else its head, tail or both
 * across the two streams together, so one range of offsets names what was left out. Chunks hold
 * whole characters, so their bytes joined cut on character boundaries like any text.
 */
export function budgetProcessOutput(
  page: { offset: number; chunks: ReadonlyArray<{ stream: "stdout" | "stderr"; bytes: Uint8Array }> },
  budget: number,
  keep: OutputKeep,
): ProcessOutputText {
  const joined = concatAll(page.chunks.map((chunk) => chunk.bytes));
  const cut = cutBytes(joined, budget, keep);
  // The bytes of one stream within [from, to) of the page.
  const within = (stream: "stdout" | "stderr", from: number, to: number) => {
    const kept: Uint8Array[] = [];
    let position = 0;
    for (const chunk of page.chunks) {
      const start = Math.max(from, position);
      const end = Math.min(to, position + chunk.bytes.length);
      if (chunk.stream === stream && start < end)
        kept.push(chunk.bytes.subarray(start - position, end - position));
      position += chunk.bytes.length;
    }
    return concatAll(kept);
  };
  const from = page.offset + cut.from;
  const to = page.offset + cut.to;
  const text = (stream: "stdout" | "stderr") => {
    const omittedBytes = within(stream, cut.from, cut.to).length;
    const marker = `cut ${formatCount(omittedBytes)} bytes of ${stream} (offsets ${formatCount(from)}–${formatCount(to)} of the output, both streams); read them with since_offset ${from} and keep "head"`;
    const head = decoder.decode(within(stream, 0, cut.from));
    const tail = decoder.decode(within(stream, cut.to, joined.length));
    return joinCut({ head, tail, omittedBytes }, marker);
  };
  return {
    stdout: text("stdout"),
    stderr: text("stderr"),
    omittedBytes: cut.omittedBytes,
    omittedRange: cut.omittedBytes === 0 ? null : [from, to],
  };
}

/** The parts as one array (the part itself when there is one). */
export function concatAll(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let position = 0;
  for (const part of parts) {
    joined.set(part, position);
    position += part.length;
  }
  return joined;
}

/**
 * A file's text (whole, or the lines of a view_range starting at `firstLine`) within a budget;
 * the marker and `omittedLines` name the lines the cut touched, for a view_range to read them.
 */
export function budgetViewContent(
  content: string,
  firstLine: number,
  budget: number | undefined,
  keep: OutputKeep,
): { content: string; omittedBytes: number; omittedLines: [number, number] | null } {
  if (budget === undefined) return { content, omittedBytes: 0, omittedLines: null };
  const cut = cutText(content, budget, keep);
  if (cut.omittedBytes === 0) return { content, omittedBytes: 0, omittedLines: null };
  const first = firstLine + countLineFeeds(cut.bytes, 0, cut.from);
  const last = first + countLineFeeds(cut.bytes, cut.from, cut.to - 1);
  const marker = `cut ${formatCount(cut.omittedBytes)} bytes, in lines ${first}–${last}; view them with view_range [${first}, ${last}] or a larger max_output_bytes`;
  return { content: joinCut(cut, marker), omittedBytes: cut.omittedBytes, omittedLines: [first, last] };
}
