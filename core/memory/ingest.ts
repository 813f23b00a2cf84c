/**
 * Deterministic, model-free ingest (docs/memory.md#ingest, steps 1–7): cut a document or a
 * session transcript into bounded, atomic memories with a kind, event dates and an importance.
 * Storing them is the caller's job; this module only decides what to store.
 */

import { extractEventDates, unionDates } from "./dates.ts";
import { indexTokens, meaningfulTokens, writtenWithoutSpaces } from "./tokenize.ts";

import type { MemoryKind } from "./vocabulary.ts";

export type { MemoryKind };

export interface IngestRequest {
  content: string;
  kind: MemoryKind | "auto";
  /** Anchors relative dates ("yesterday"); null leaves them out. */
  documentDate: Date | null;
}

export interface ExtractedMemory {
  content: string;
  kind: MemoryKind;
  eventDates: string[];
  importance: number;
  sourceContent: string;
}

/** Most fragments kept per call. */
export const maxFragments = 50;
/** Longest memory content, in UTF-16 code units (the `content` limit of docs/api.md#memory, 64 Ki chars). */
export const maxMemoryLength = 65_536;
/** A document up to this many UTF-8 bytes is also kept whole, next to its fragments. */
export const maxWholeDocumentBytes = 8_192;
// A fragment with fewer meaningful tokens ("ok thanks", "See above.") says nothing durable.
const minMeaningfulTokens = 3;

// "speaker: text" — a name of one to three words, at most 32 characters, before the colon.
const speakerPattern = /^\s*([\p{L}\p{N}][\p{L}\p{N}._'-]*(?: [\p{L}\p{N}._'-]+){0,2}):\s+(\S.*)$/u;
const maxSpeakerLength = 32;
// Words that end with a full stop without ending the sentence ("Dr. Smith", "e.g. this").
const abbreviations = new Set([
  "mr",
  "mrs",
  "ms",
  "dr",
  "prof",
  "sr",
  "jr",
  "st",
  "vs",
  "e.g",
  "i.e",
  "cf",
  "approx",
]);

const kindRules: Array<{ kind: MemoryKind; pattern: RegExp }> = [
  { kind: "preference", pattern: /\bprefer|\bfavou?rite|\blike to\b|\bdislike/ },
  { kind: "goal", pattern: /\bneeds? to\b|\bplan(?:s|ning)? to\b|\bgoals?\b|\bwill\b|\bwants? to\b/ },
  { kind: "instruction", pattern: /\bmust\b|\balways\b|\bnever\b|\bdo not\b|\bdon['’]t\b/ },
  { kind: "summary", pattern: /summary:|\bin summary\b|\boverall\b/ },
];
const importantPattern = /\b(important|must|critical|favou?rite)/;

interface Fragment {
  /** The stored text: the sentence, prefixed with its speaker in a transcript. */
  content: string;
  /** The sentence alone, without the speaker: what counts and classifies. */
  body: string;
}

function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * A text as pieces of at most `limit` (64 Ki), cut at the last space that fits (or, with none,
 * at the limit, never between the halves of a surrogate pair). Where the contract truncates a
 * fragment to 64 KiB, the rest is kept as the next pieces: an ingest loses nothing it was sent.
 */
function pieces(text: string, limit = maxMemoryLength): string[] {
  const found: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const space = rest.lastIndexOf(" ", limit);
    let end = space > 0 ? space : limit;
    if (space <= 0 && /[\uD800-\uDBFF]/.test(rest[end - 1])) end -= 1;
    found.push(rest.slice(0, end));
    rest = rest.slice(space > 0 ? end + 1 : end);
  }
  found.push(rest);
  return found;
}

/** Sentences of one line: cut after `.`, `!` or `?` (and closing quotes) followed by whitespace,
 * and after the full-width `。`, `！`, `？` of Chinese and Japanese, which no space follows. */
function splitSentences(line: string): string[] {
  const sentences: string[] = [];
  let start = 0;
  for (const match of line.matchAll(/[.!?]+["'’”)\]]*\s+|[。！？]+[」』”）]*\s*/g)) {
    const lastWord = (/\S+$/.exec(line.slice(start, match.index))?.[0] ?? "").replace(/^[^\p{L}]+/u, "");
    // An abbreviation or an initial ("J. R. R. Tolkien"; not the pronoun "I") does not end a sentence.
    const isAbbreviation =
      abbreviations.has(lastWord.toLowerCase()) || (/^\p{Lu}$/u.test(lastWord) && lastWord !== "I");
    if (match[0].trim() === "." && isAbbreviation) continue;
    sentences.push(line.slice(start, match.index + match[0].length));
    start = match.index + match[0].length;
  }
  sentences.push(line.slice(start));
  return sentences;
}

function speakerOf(line: string): { speaker: string; text: string } | null {
  const match = speakerPattern.exec(line);
  if (match === null || match[1].length > maxSpeakerLength) return null;
  return { speaker: match[1], text: match[2] };
}

/** Step 1: sentences and lines, whitespace collapsed. In a session transcript (two or more
 * `speaker: text` lines) every sentence of a turn keeps its speaker in front. */
function segment(text: string): Fragment[] {
  const lines = text.split(/\r\n|\r|\n/);
  const isTranscript = lines.filter((line) => speakerOf(line) !== null).length >= 2;
  const fragments: Fragment[] = [];
  for (const line of lines) {
    const turn = isTranscript ? speakerOf(line) : null;
    for (const sentence of splitSentences(turn === null ? line : turn.text)) {
      const body = collapseWhitespace(sentence);
      if (body === "") continue;
      fragments.push({ content: turn === null ? body : `${turn.speaker}: ${body}`, body });
    }
  }
  return fragments;
}

// Chinese and Japanese are written without spaces: a sentence is one "word" to
// `meaningfulTokens`, so its meaning is counted in the index's character pairs instead.
const meaningfulCount = (text: string) =>
  writtenWithoutSpaces(text) ? indexTokens(text).length : meaningfulTokens(text).length;

/** Step 2: keep fragments with enough meaning, once each (case-insensitive), at most 50; one
 * past 64 Ki characters becomes as many pieces as it takes, each counted. */
function selectFragments(fragments: Fragment[]): Fragment[] {
  const seen = new Set<string>();
  const selected: Fragment[] = [];
  for (const fragment of fragments) {
    if (meaningfulCount(fragment.body) < minMeaningfulTokens) continue;
    const key = fragment.content.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    const speaker = fragment.content.slice(0, fragment.content.length - fragment.body.length);
    for (const body of pieces(fragment.body, maxMemoryLength - speaker.length)) {
      if (selected.length >= maxFragments) return selected;
      selected.push({ content: `${speaker}${body}`, body });
    }
  }
  return selected;
}

/** Step 3: the first matching rule wins; a plain statement is a fact. */
export function classifyKind(text: string): MemoryKind {
  const lower = text.toLowerCase();
  return kindRules.find((rule) => rule.pattern.test(lower))?.kind ?? "fact";
}

/** Step 5: dated memories matter more, and so do ones that say they matter. */
export function importanceOf(text: string, eventDates: readonly string[]): number {
  const base = eventDates.length > 0 ? 0.75 : 0.5;
  return importantPattern.test(text.toLowerCase()) ? Math.min(1, base + 0.2) : base;
}

function describe(content: string, body: string, request: IngestRequest): ExtractedMemory {
  const eventDates = extractEventDates(body, request.documentDate);
  return {
    content,
    kind: request.kind === "auto" ? classifyKind(body) : request.kind,
    eventDates,
    importance: importanceOf(body, eventDates),
    sourceContent: content,
  };
}

/** The memories to store for an ingest request, in order (steps 1–7 of docs/memory.md#ingest).
 * Empty only when the content is nothing but whitespace. */
export function extractMemories(request: IngestRequest): ExtractedMemory[] {
  const whole = request.content.trim();
  if (whole === "") return [];
  const fragments = selectFragments(segment(request.content));
  if (fragments.length === 0) return pieces(whole).map((content) => describe(content, content, request));
  const memories = fragments.map((fragment) => describe(fragment.content, fragment.body, request));
  // Short documents are also kept whole: the fragments lose the context between sentences.
  if (memories.length > 1 && fitsWholeDocument(whole)) {
    memories.unshift({
      content: whole,
      kind: request.kind === "auto" ? "fact" : request.kind,
      eventDates: unionDates(memories.map((memory) => memory.eventDates)),
      importance: Math.max(...memories.map((memory) => memory.importance)),
      sourceContent: whole,
    });
  }
  return memories;
}

function fitsWholeDocument(text: string): boolean {
  // Every character takes at least one UTF-8 byte, so a long text is rejected without encoding it.
  return (
    text.length <= maxWholeDocumentBytes && new TextEncoder().encode(text).length <= maxWholeDocumentBytes
  );
}
