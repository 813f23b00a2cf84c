/**
 * The public LoCoMo benchmark (10 long conversations between two speakers, about 5,900 turns and
 * 2,000 questions with labelled evidence turns) as a recall-quality dataset, read from a
 * `locomo10.json` (or the folder of one file per conversation its `data/locomo10.zip` holds) the user supplies: the data is not shipped here (its licence is CC BY-NC 4.0),
 * and nothing is downloaded.
 *
 * Each turn becomes "Speaker: text" (image captions left out), dated by its session plus a
 * minute per turn. LoCoMo's question categories 1–4 are kept as multi-hop, temporal,
 * open-domain and single-hop; category 5 (adversarial: questions about things never said) has no
 * evidence to find and is left out, as are questions whose evidence names no turn of the
 * conversation.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Conversation, Question, Turn } from "./dataset.ts";

export const locomoCategories = ["single-hop", "multi-hop", "temporal", "open-domain"] as const;
const categoryOf: Record<number, (typeof locomoCategories)[number]> = {
  1: "multi-hop",
  2: "temporal",
  3: "open-domain",
  4: "single-hop",
};

const months = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];
const evidencePattern = /D:?(\d+):(\d+)/g;
// "1:56 pm on 8 May, 2023"
const sessionDatePattern = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})$/i;

function sessionDate(text: string): Date {
  const match = sessionDatePattern.exec(text.trim());
  const month = match ? months.indexOf(match[5].toLowerCase()) : -1;
  if (match === null || month === -1)
    throw new Error(`locomo: unreadable session date ${JSON.stringify(text)}`);
  const hour = (Number(match[1]) % 12) + (match[3].toLowerCase() === "pm" ? 12 : 0);
  return new Date(Date.UTC(Number(match[6]), month, Number(match[4]), hour, Number(match[2])));
}

interface LocomoTurn {
  speaker: string;
  dia_id: string;
  text: string;
}

interface LocomoSample {
  conversation: Record<string, string | LocomoTurn[]>;
  qa: Array<{ question: string; answer?: unknown; evidence?: string[]; category: number }>;
}

export interface LocomoDataset {
  conversations: Conversation[];
  /** Questions left out: adversarial ones, and those whose evidence names no turn. */
  skipped: number;
}

/**
 * The samples of `locomo10.json` (an array), or of a folder of one file per conversation, as
 * `data/locomo10.zip` unpacks (`multimodal_dialog/locomo10_v2/26.json` …: the conversation's
 * fields and its `qa` in one object), in the order of their numbers.
 */
function readSamples(path: string): LocomoSample[] {
  if (!statSync(path).isDirectory()) return JSON.parse(readFileSync(path, "utf8")) as LocomoSample[];
  const files = readdirSync(path)
    .filter((name) => /^\d+\.json$/.test(name))
    .sort((first, second) => Number.parseInt(first, 10) - Number.parseInt(second, 10));
  return files.map((name) => {
    const { qa, ...conversation } = JSON.parse(readFileSync(join(path, name), "utf8"));
    return { conversation, qa } as LocomoSample;
  });
}

export function loadLocomo(path: string): LocomoDataset {
  const samples = readSamples(path);
  if (!Array.isArray(samples) || samples.some((sample) => typeof sample?.conversation !== "object"))
    throw new Error(`locomo: ${path} is not a LoCoMo file (an array of samples with a conversation)`);
  let skipped = 0;
  const conversations = samples.map((sample, index): Conversation => {
    const { conversation } = sample;
    const turns: Turn[] = [];
    for (let session = 1; Array.isArray(conversation[`session_${session}`]); session++) {
      const date = sessionDate(String(conversation[`session_${session}_date_time`]));
      for (const [position, turn] of (conversation[`session_${session}`] as LocomoTurn[]).entries()) {
        turns.push({
          id: `${index}:${turn.dia_id}`,
          conversation: index,
          session,
          speaker: turn.speaker,
          text: turn.text,
          at: new Date(date.getTime() + position * 60_000).toISOString(),
          sessionDate: date.toISOString(),
        });
      }
    }
    const known = new Set(turns.map((turn) => turn.id));
    const questions: Question[] = [];
    for (const entry of sample.qa ?? []) {
      const category = categoryOf[entry.category];
      // Evidence ids are "D<session>:<turn>"; a few entries hold several ("D8:6; D9:17"), or
      // a stray colon ("D:11:26").
      const evidence = (entry.evidence ?? [])
        .flatMap((text) => [...String(text).matchAll(evidencePattern)])
        .map(([, session, turn]) => `${index}:D${session}:${turn}`)
        .filter((id) => known.has(id));
      if (category === undefined || evidence.length === 0) {
        skipped++;
        continue;
      }
      questions.push({
        conversation: index,
        category,
        question: entry.question,
        answer: String(entry.answer ?? ""),
        evidence: [...new Set(evidence)],
      });
    }
    const speakers: [string, string] = [String(conversation.speaker_a), String(conversation.speaker_b)];
    return { index, speakers, turns, questions };
  });
  return { conversations, skipped };
}
