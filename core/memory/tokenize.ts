/**
 * Tokenisation for memory search and relation detection. Written once here so the SQLite and
 * PostgreSQL stores index, query and rank exactly the same tokens (docs/memory.md#search).
 *
 * - `indexTokens` / `indexTermCounts`: the distinct terms a memory is indexed under, with counts.
 * - `queryTokens`: the distinct terms a search query looks for; never throws, may be empty.
 * - `textTerms`: every word of a text in order as written, stopwords included (phrase matching).
 * - `meaningfulTokens`: the "meaningful tokens" (relation similarity, ingest filtering).
 *
 * Index and query terms are stems: an English word (ASCII letters only) is reduced by the
 * Porter2 (Snowball English) stemmer, so "researching", "researched" and "research" are one
 * term and "What did she research?" finds "Researching adoption agencies". Accents are taken off
 * first (`normaliseText`), so "Résumés" is stemmed as "resumes". Any other word (digits, other
 * scripts) stays as written. Stopwords are recognised before stemming, on the words as written.
 */

import { stem } from "porter2";
import { writtenDatesAsIso } from "./dates.ts";
import { stopwords } from "./stopwords.ts";

/**
 * Longest token, in code points. Longer runs are cut: they are hashes, base64 or URL fragments
 * nobody types into a query, and the cut keeps every token far below PostgreSQL's index entry
 * size limit (64 code points ≤ 256 bytes). Queries are cut the same way, so prefixes still match.
 */
export const maxTokenLength = 64;
/**
 * Most distinct tokens indexed per memory (first occurrences win). Bounds the index row of a
 * 64 KiB memory; 512 distinct words is far beyond any single memory a query should find.
 */
export const maxIndexTokens = 512;
/** Most distinct tokens per query: a 400-character query rarely has more, and each costs a lookup. */
export const maxQueryTokens = 32;

// A run of letters, numbers and combining marks: one word (or one stretch of unspaced script).
const wordRunPattern = /[\p{L}\p{N}\p{M}]+/gu;
// Han and kana are written without spaces, so a run of them is cut into overlapping bigrams
// (the usual CJK search practice); other scripts keep whole runs.
const unspacedSegmentPattern =
  /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]+|[^\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]+/gu;
const unspacedCharacterPattern = /^[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]/u;
const unspacedAnywherePattern = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]/u;

/** Whether a text holds Chinese or Japanese, written without spaces (indexed by character pairs). */
export const writtenWithoutSpaces = (text: string): boolean => unspacedAnywherePattern.test(text);
const asciiWordPattern = /^[a-z0-9]+$/;

const nonAscii = /[\u0080-\uffff]/;
// The accents of Latin, Greek and Cyrillic letters once decomposed (é is e and a combining
// acute accent); other scripts' marks (Devanagari vowel signs, Arabic vowels, kana voicing) lie
// outside and stay.
const combiningDiacritics = /[\u0300-\u036f]/g;
// "C++", "C#", "F#": a letter and the signs that make it a name, as one word.
const signedNames = /(?<![\p{L}\p{N}])([a-z])(\+\+|#)(?![\p{L}\p{N}+#])/gu;

/**
 * NFKC (folds full-width forms, ligatures, compatibility characters), lower-case, accents taken
 * off ("Zürich" and "Zurich", "résumé" and "resume" are one word; "ß" is "ss"), and "c++", "c#"
 * written as the words "cplusplus", "csharp", which the word pattern would otherwise cut to "c".
 * Written dates become ISO dates ("March 14, 2026" is "2026-03-14"), as the same day is written.
 * Index, query and phrase terms all come from it, so they fold alike on both databases.
 */
export function normaliseText(text: string): string {
  // toLowerCase is locale-independent, unlike toLocaleLowerCase: same result in every runtime.
  let folded = writtenDatesAsIso(text.normalize("NFKC").toLowerCase());
  if (nonAscii.test(folded))
    folded = folded.normalize("NFD").replace(combiningDiacritics, "").normalize("NFC").replaceAll("ß", "ss");
  if (folded.includes("+") || folded.includes("#"))
    folded = folded.replace(
      signedNames,
      (_, letter: string, signs: string) => `${letter}${signs === "#" ? "sharp" : "plusplus"}`,
    );
  return folded;
}

function capLength(codePoints: string[]): string {
  return codePoints.length > maxTokenLength
    ? codePoints.slice(0, maxTokenLength).join("")
    : codePoints.join("");
}

/** Every term of the text in reading order, stopwords and one-character terms included. */
export function textTerms(text: string): string[] {
  const terms: string[] = [];
  for (const run of normaliseText(text).match(wordRunPattern) ?? []) {
    // Fast path for the common case: a plain ASCII word needs no script split or code points.
    if (asciiWordPattern.test(run)) {
      terms.push(run.length > maxTokenLength ? run.slice(0, maxTokenLength) : run);
      continue;
    }
    for (const segment of run.match(unspacedSegmentPattern) ?? []) {
      const codePoints = Array.from(segment);
      if (codePoints.length > 1 && unspacedCharacterPattern.test(segment)) {
        for (let index = 0; index + 1 < codePoints.length; index++) {
          terms.push(codePoints[index] + codePoints[index + 1]);
        }
      } else {
        terms.push(capLength(codePoints));
      }
    }
  }
  return terms;
}

/** Whether a term from `textTerms` is indexed: not a stopword, and longer than one character
 * (a single Han or kana character is a word on its own, so it stays). */
export function isIndexTerm(term: string): boolean {
  if (stopwords.has(term)) return false;
  // One code point is one or two UTF-16 units (two for astral characters).
  const singleCodePoint = term.length === 1 || (term.length === 2 && (term.codePointAt(0) ?? 0) > 0xffff);
  return !singleCodePoint || unspacedCharacterPattern.test(term);
}

const englishWord = /^[a-z]+$/;

/** The index term of a word from `textTerms`: its Porter2 stem if it is an English word (ASCII
 * letters only), otherwise the word itself. A stem takes about 0.4 µs to work out. */
export function termOf(word: string): string {
  return englishWord.test(word) ? stem(word) : word;
}

/** The first `limit` distinct index terms of a term list (the terms of one text). */
export function distinctIndexTerms(terms: readonly string[], limit: number): string[] {
  const distinct = new Set<string>();
  for (const term of terms) {
    if (distinct.size >= limit) break;
    if (isIndexTerm(term)) distinct.add(term);
  }
  return [...distinct];
}

/** The distinct terms (`termOf`) of a text's first `limit` distinct index words, in order of
 * first occurrence. */
function distinctTerms(text: string, limit: number): string[] {
  return [...new Set(distinctIndexTerms(textTerms(text), limit).map(termOf))];
}

/** The distinct terms a memory is indexed under, in order of first occurrence. Each is a run of
 * Unicode letters, numbers and marks only (no quotes, spaces or operators). */
export function indexTokens(text: string): string[] {
  return distinctTerms(text, maxIndexTokens);
}

/** A memory's index terms with their counts, and its indexed length (the sum of the counts):
 * what the inverted index stores and BM25 reads. The first `maxIndexTokens` distinct words are
 * indexed, each under its term. */
export function indexTermCounts(text: string): { counts: Map<string, number>; length: number } {
  const words = textTerms(text);
  const indexed = new Set(distinctIndexTerms(words, maxIndexTokens));
  const counts = new Map<string, number>();
  let length = 0;
  for (const word of words) {
    if (!indexed.has(word)) continue;
    const term = termOf(word);
    counts.set(term, (counts.get(term) ?? 0) + 1);
    length++;
  }
  return { counts, length };
}

/** The distinct terms a query looks for (the same terms as `indexTokens`). Any input gives a
 * valid list; an empty list means the query can match nothing. */
export function queryTokens(query: string): string[] {
  return distinctTerms(query, maxQueryTokens);
}

// The reference pattern `[a-z0-9][a-z0-9_'-]*`, widened from ASCII to all letters and numbers (and the marks
// inside words) so "café" is one token, not "caf", and non-Latin text has meaningful tokens.
const meaningfulPattern = /[\p{L}\p{N}][\p{L}\p{N}\p{M}_'-]*/gu;

/** "Meaningful tokens": lower-cased words (`[a-z0-9][a-z0-9_'-]*` for ASCII text) longer
 * than one character, minus stopwords; distinct, in order of first occurrence. */
export function meaningfulTokens(text: string): string[] {
  // Typographic apostrophes are folded so "don’t" and "don't" are one token.
  const normalised = normaliseText(text).replace(/[\u2018\u2019\u02bc]/g, "'");
  const distinct = new Set<string>();
  for (const match of normalised.match(meaningfulPattern) ?? []) {
    // A trailing quote or hyphen is punctuation, not part of the word ("rollout-", "users'").
    const token = match.replace(/['-]+$/, "");
    if (Array.from(token).length > 1 && !stopwords.has(token)) distinct.add(token);
  }
  return [...distinct];
}
