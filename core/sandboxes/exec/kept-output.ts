/**
 * What a runtime keeps of one stream of an exec's output. Without a budget: the head up to the
 * runtime's cap (1 MiB of stdout, 256 KiB of stderr), as the JSON answer always had. With one
 * (ExecRequest.budget): exactly the bytes the budget's cut needs from the whole output, however
 * long, while counting every byte: the head (plus one byte, to see whether the cut would split a
 * character) and a ring buffer of the last bytes. So `keep: "tail"` of a 5 MiB output is its true
 * end, and memory stays at about the budget. Both runtimes share it (core/index.ts exports it).
 */
import type { ExecOutputBudget, KeptOutput } from "../../ports/sandbox-runtime.ts";

export interface OutputKeeper {
  add(chunk: Uint8Array): void;
  kept(): KeptOutput;
  /** True when bytes were dropped that `kept()` does not account for (the cap without a budget). */
  truncated(): boolean;
}

/** The bytes of the head a budget's cut keeps (`"both"`: the head takes the odd byte). */
export function headBudgetBytes(budget: ExecOutputBudget): number {
  if (budget.keep === "head") return budget.maxBytes;
  if (budget.keep === "tail") return 0;
  return Math.ceil(budget.maxBytes / 2);
}

export function createOutputKeeper(capBytes: number, budget?: ExecOutputBudget): OutputKeeper {
  const headBudget = budget ? headBudgetBytes(budget) : capBytes;
  // One byte past the head's budget tells the cut whether it would split a character.
  const headCapacity = budget && headBudget > 0 ? headBudget + 1 : headBudget;
  const tailCapacity = budget ? budget.maxBytes - headBudget : 0;
  // The head grows as output comes (a cap may be far more than a command writes); the ring is the budget's.
  const head: Uint8Array[] = [];
  const ring = new Uint8Array(tailCapacity);
  let headLength = 0;
  let ringLength = 0;
  let ringEnd = 0;
  let totalBytes = 0;
  return {
    add(chunk) {
      totalBytes += chunk.length;
      const intoHead = Math.min(headCapacity - headLength, chunk.length);
      // A copy: the caller may reuse its buffer.
      if (intoHead > 0) head.push(chunk.slice(0, intoHead));
      headLength += intoHead;
      if (tailCapacity === 0) return;
      // Only the last `tailCapacity` bytes of what is left can stay in the ring.
      let rest = chunk.subarray(Math.max(intoHead, chunk.length - tailCapacity));
      ringLength = Math.min(tailCapacity, ringLength + rest.length);
      while (rest.length > 0) {
        const room = Math.min(tailCapacity - ringEnd, rest.length);
        ring.set(rest.subarray(0, room), ringEnd);
        ringEnd = (ringEnd + room) % tailCapacity;
        rest = rest.subarray(room);
      }
    },
    kept() {
      const tail = new Uint8Array(ringLength);
      const start = (ringEnd - ringLength + tailCapacity) % (tailCapacity || 1);
      const firstPart = ring.subarray(start, Math.min(start + ringLength, tailCapacity));
      tail.set(firstPart);
      tail.set(ring.subarray(0, ringLength - firstPart.length), firstPart.length);
      return { head: concatenate(head, headLength), tail, totalBytes };
    },
    truncated: () => budget === undefined && totalBytes > capBytes,
  };
}

/** The kept bytes joined (the whole output when nothing was dropped). */
export function joinKeptOutput(kept: KeptOutput): Uint8Array {
  if (kept.tail.length === 0) return kept.head;
  return concatenate([kept.head, kept.tail], kept.head.length + kept.tail.length);
}

function concatenate(parts: Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const joined = new Uint8Array(length);
  let position = 0;
  for (const part of parts) {
    joined.set(part, position);
    position += part.length;
  }
  return joined;
}
