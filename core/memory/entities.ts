/**
 * Capitalised-phrase entity extraction (docs/memory.md#relations), model-free: names of people, places,
 * products and projects as they are usually written. Used by relation detection (shared
 * entities) and by the stores to find rows sharing a query's entities.
 */

import { stopwords } from "./stopwords.ts";

// A capitalised word: an upper-case or title-case letter, then letters, marks, digits, ' or -.
const capitalisedWordPattern = /^[\p{Lu}\p{Lt}][\p{L}\p{M}\p{N}'’-]*$/u;
// A component word appearing more often than this in one text is generic ("New" in a list of
// cities, "University" in a list of schools), not a name on its own.
const frequentComponentCount = 3;
// Single words shorter than this ("Mr", "Al", "My") are too ambiguous to be entities.
const minimumSingleWordLength = 3;

function foldCase(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/’/g, "'");
}

/** Runs of consecutive capitalised words (original spelling), in reading order. */
function capitalisedRuns(text: string): string[][] {
  const runs: string[][] = [];
  let current: string[] = [];
  const close = (): void => {
    if (current.length > 0) runs.push(current);
    current = [];
  };
  // A line break ends a run: names do not continue over a line.
  for (const line of text.split(/[\r\n]+/)) {
    for (const piece of line.match(/\S+/gu) ?? []) {
      // Punctuation around a word ends the run: before it ("(Paul") or after it ("Paul." "Berlin,").
      const leading = /^[^\p{L}\p{M}\p{N}]*/u.exec(piece)?.[0] ?? "";
      const trailing = /[^\p{L}\p{M}\p{N}]*$/u.exec(piece)?.[0] ?? "";
      if (leading !== "") close();
      const core = piece.slice(leading.length, Math.max(leading.length, piece.length - trailing.length));
      // A possessive belongs to the name before it and ends the run: "Amala Paul's car".
      const word = core.replace(/['’]s$/u, "");
      if (capitalisedWordPattern.test(word)) {
        current.push(word);
      } else {
        close();
      }
      if (trailing !== "" || word !== core) close();
    }
    close();
  }
  return runs;
}

/** A multi-word entity with its case-folded words; a leading "the" is dropped. */
function phraseWords(run: string[]): string[] {
  const words = run.map(foldCase);
  while (words.length > 0 && stopwords.has(words[0])) words.shift();
  return words;
}

function isSingleWordEntity(word: string): boolean {
  return Array.from(word).length >= minimumSingleWordLength && !stopwords.has(word);
}

/**
 * The distinct entities of a text, case-folded: multi-word capitalised runs (leading "the"
 * and other stopwords dropped), single capitalised words of ≥ 3 characters, and the component
 * words of multi-word entities (so "Darwin" later matches "Charles Darwin") unless a component
 * is frequent in the text (more than 3 occurrences).
 */
export function extractEntities(text: string): string[] {
  const entities = new Set<string>();
  const components: string[] = [];
  for (const run of capitalisedRuns(text)) {
    const words = phraseWords(run);
    if (words.length >= 2) {
      entities.add(words.join(" "));
      components.push(...words);
    } else if (words.length === 1 && isSingleWordEntity(words[0])) {
      entities.add(words[0]);
    }
  }
  const occurrences = new Map<string, number>();
  for (const word of foldCase(text).split(/[^\p{L}\p{M}\p{N}'-]+/u)) {
    occurrences.set(word, (occurrences.get(word) ?? 0) + 1);
  }
  for (const component of components) {
    const frequent = (occurrences.get(component) ?? 0) > frequentComponentCount;
    if (isSingleWordEntity(component) && !frequent) entities.add(component);
  }
  return [...entities];
}

/**
 * The entities two texts share, not counting a single word whose multi-word entity is also
 * shared ("amala paul" shared counts once, not three times with "amala" and "paul").
 */
export function sharedEntities(
  first: readonly string[],
  second: readonly string[] | ReadonlySet<string>,
): string[] {
  const secondSet = second instanceof Set ? second : new Set(second);
  const shared = first.filter((entity) => secondSet.has(entity));
  // Most pairs share nothing: no further allocation for them.
  if (shared.length === 0) return shared;
  const sharedWords = new Set(
    shared.filter((entity) => entity.includes(" ")).flatMap((entity) => entity.split(" ")),
  );
  return shared.filter((entity) => entity.includes(" ") || !sharedWords.has(entity));
}

// "Maya: …" or "Maya Lopez: …" at the start of a memory: a transcript line and its speaker.
const speakerPattern = /^\s*([\p{Lu}\p{Lt}][\p{L}\p{M}'’-]*(?: [\p{Lu}\p{Lt}][\p{L}\p{M}'’-]*){0,2}):\s/u;

/** The speaker of a transcript line ("Maya: I moved to Porto"), case-folded, or null. */
export function speakerOf(content: string): string | null {
  const match = speakerPattern.exec(content);
  return match === null ? null : foldCase(match[1]);
}

/** How many characters the speaker label of a transcript line takes ("Maya: " is 6), or 0. */
export function speakerLabelLength(content: string): number {
  return speakerPattern.exec(content)?.[0].length ?? 0;
}
