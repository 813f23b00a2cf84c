/**
 * The labelled statement pairs of pairs.json, split in two halves: within each label and language,
 * the first, third, fifth… pair calibrates the thresholds and the others are held out, so both
 * halves hold every kind in the same proportion and the split never changes.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

export type PairLabel = "update" | "addition" | "lookalike" | "other-slot" | "restatement" | "unrelated";

export interface StatementPair {
  label: PairLabel;
  lang: string;
  older: string;
  newer: string;
  half: "calibration" | "held-out";
}

export function loadPairs(): StatementPair[] {
  const file = resolve(import.meta.dirname, "pairs.json");
  const { pairs } = JSON.parse(readFileSync(file, "utf8")) as { pairs: Omit<StatementPair, "half">[] };
  const seen = new Map<string, number>();
  return pairs.map((pair) => {
    const key = `${pair.label} ${pair.lang}`;
    const index = seen.get(key) ?? 0;
    seen.set(key, index + 1);
    return { ...pair, half: index % 2 === 0 ? "calibration" : "held-out" };
  });
}
