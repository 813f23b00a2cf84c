/**
 * Relation detection benchmark (issue 45 item 2): precision and recall of "updates" (the newer
 * memory corrects the older one and supersedes it) on the labelled pairs of
 * relation-detection/pairs.json, lexical rules alone (embeddings off) against the rules with the
 * corrections caught by meaning (core/memory/corrections.ts; embeddings on, the default model from
 * the real model server). Prints, for both halves: every pair on its own; then a pool, where
 * each newer statement of the half meets all the half's older statements as earlier memories of
 * one scope (lexical: every one, as the 100-row window would; with embeddings: its
 * `correctionCandidates` nearest by cosine) and any supersession but its partner's is a false one.
 * Run: `npx node test/bench/relation-detection.ts [--verbose]`. Exits 0 whatever the figures.
 */
import { parseArgs } from "node:util";
import { correctionCandidates, detectRelationByMeaning } from "../../core/memory/corrections.ts";
import { detectRelation } from "../../core/memory/relations.ts";
import {
  cosine,
  embed,
  ensureModelServerEnvironment,
  startModelServer,
} from "../model-server/model-server-process.ts";
import { loadPairs, type StatementPair } from "./relation-detection/pairs.ts";

const { values: options } = parseArgs({ options: { verbose: { type: "boolean", default: false } } });

interface Counts {
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
}

const figures = ({ truePositives, falsePositives, falseNegatives }: Counts) => {
  const precision = truePositives / Math.max(1, truePositives + falsePositives);
  const recall = truePositives / Math.max(1, truePositives + falseNegatives);
  return `precision ${precision.toFixed(3)} recall ${recall.toFixed(3)} (TP ${truePositives}, FP ${falsePositives}, FN ${falseNegatives})`;
};

ensureModelServerEnvironment();
const modelServer = await startModelServer({ environment: { SVC_EAGER_LOAD: "true" } });
try {
  const health = (await (await fetch(`${modelServer.url}/health`)).json()) as { model: string };
  const pairs = loadPairs();
  const texts = [...new Set(pairs.flatMap((pair) => [pair.older, pair.newer]))];
  const { body } = await embed(modelServer, { input: texts });
  const vectors = new Map(texts.map((text, index) => [text, body.data[index].embedding]));
  const similarity = (first: string, second: string) =>
    cosine(vectors.get(first) as number[], vectors.get(second) as number[]);
  const modes = {
    lexical: (newer: string, older: string) =>
      detectRelation({ content: newer }, { content: older })?.type === "updates",
    embeddings: (newer: string, older: string) =>
      detectRelationByMeaning({ content: newer }, { content: older }, similarity(newer, older))?.type ===
      "updates",
  };
  console.log(
    `relation detection bench on ${new Date().toISOString()}, node ${process.version}, model ${health.model}`,
  );
  console.log(
    `${pairs.length} pairs: ${pairs.filter((pair) => pair.label === "update").length} updates, ` +
      `${pairs.filter((pair) => pair.label !== "update").length} others; languages ${[...new Set(pairs.map((pair) => pair.lang))].join(", ")}`,
  );
  for (const half of ["calibration", "held-out"] as const) {
    const selected = pairs.filter((pair) => pair.half === half);
    console.log(`\n${half} half: ${selected.length} pairs`);
    for (const [mode, isUpdate] of Object.entries(modes)) {
      const all: Counts = { truePositives: 0, falsePositives: 0, falseNegatives: 0 };
      const byLanguage = new Map<string, Counts>();
      for (const pair of selected) {
        const language = byLanguage.get(pair.lang) ?? {
          truePositives: 0,
          falsePositives: 0,
          falseNegatives: 0,
        };
        byLanguage.set(pair.lang, language);
        const found = isUpdate(pair.newer, pair.older);
        const expected = pair.label === "update";
        const key =
          found && expected ? "truePositives" : found ? "falsePositives" : expected ? "falseNegatives" : null;
        if (key === null) continue;
        all[key]++;
        language[key]++;
        if (options.verbose && key !== "truePositives")
          console.log(
            `    ${key === "falsePositives" ? "FP" : "FN"} ${pair.label} cos ${similarity(pair.newer, pair.older).toFixed(3)}: ${pair.older} → ${pair.newer}`,
          );
      }
      console.log(`  ${mode.padEnd(10)} pairs: ${figures(all)}`);
      for (const [language, counts] of byLanguage) console.log(`    ${language}: ${figures(counts)}`);
      console.log(
        `  ${mode.padEnd(10)} pool:  ${figures(pool(selected, mode as keyof typeof modes, isUpdate, similarity))}`,
      );
    }
  }
} finally {
  await modelServer.stop();
}

/**
 * Each newer statement against every older statement of the half as earlier memories: with
 * embeddings, only its `correctionCandidates` nearest. A supersession of its own pair's older
 * statement counts when that pair is an update; any other is a false one.
 */
function pool(
  selected: StatementPair[],
  mode: "lexical" | "embeddings",
  isUpdate: (newer: string, older: string) => boolean,
  similarityOf: (first: string, second: string) => number,
): Counts {
  // Pairs share older statements ("The CEO is Alice Wong." is the older of several): by text.
  const olders = [...new Set(selected.map((pair) => pair.older))];
  const counts: Counts = { truePositives: 0, falsePositives: 0, falseNegatives: 0 };
  for (const pair of selected) {
    const candidates =
      mode === "lexical"
        ? olders
        : olders
            .map((older) => ({ older, similarity: similarityOf(pair.newer, older) }))
            .sort((first, second) => second.similarity - first.similarity)
            .slice(0, correctionCandidates)
            .map(({ older }) => older);
    const superseded = new Set(
      candidates.filter((older) => older !== pair.newer && isUpdate(pair.newer, older)),
    );
    if (pair.label === "update") {
      if (superseded.has(pair.older)) counts.truePositives++;
      else counts.falseNegatives++;
    }
    // Another older statement superseded, or this pair's when it is no update.
    for (const older of superseded)
      if (older !== pair.older || pair.label !== "update") {
        counts.falsePositives++;
        if (options.verbose) console.log(`    pool FP (${mode}): ${older} → ${pair.newer}`);
      }
  }
  return counts;
}
