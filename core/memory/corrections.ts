/**
 * Corrections caught by meaning (issue 45 item 2; docs/memory.md#relations): with embeddings on,
 * a newer memory "updates" an older one it shares few words with when the two say the same thing
 * about the same subject with a different value: "The CEO is Alice Wong." → "The CEO is Bob
 * Stone.", "Deployments happen every Tuesday." → "… every Thursday.". The lexical rules
 * (relations.ts) miss these, their word overlap being under the update threshold or their
 * subject unparsed (other languages).
 *
 * The vectors' cosine alone cannot tell a correction from a look-alike: "The CEO is Alice
 * Wong." is nearer to "The CFO is Alice Wong." (0.75 with all-MiniLM-L6-v2) than to "The CEO is
 * Bob Stone." (0.65). So the decision is structural, with the cosine as a gate:
 * - the newer statement replaces words of the older one (some removed, some added, some kept)
 *   and does not say it adds ("also", "auch", "aussi", "también"…);
 * - the older statement's subject (the words before its verb) is still named, and the newer
 *   one's subject adds no descriptive word: "Jamal's sister drives…" is about someone else; a
 *   copula may be read either way ("Lisa is the product owner" → "Omar is the product owner"),
 *   when what changed on its subject side is a name;
 * - both use the same verb, or the newer one says it changed ("moved", "now", "jetzt"…): "The
 *   CEO lives in Boston" is another slot of the CEO, not a new value of "is"; a verb the rules
 *   find on one side only, or on neither, is no common slot;
 * - the cosine is at least `valueThreshold` when both the removed and the added words hold a value
 *   (a name, a number, a day or month), else `wordThreshold`.
 * Thresholds were calibrated on half of test/bench/relation-detection/pairs.json; RESULTS.md
 * has the figures on the other half.
 */

import { extractEntities } from "./entities.ts";
import { type DetectedRelation, detectRelation } from "./relations.ts";
import { isIndexTerm, termOf, textTerms } from "./tokenize.ts";

/** Cosine at or above which a same-subject, same-verb change of values is a correction. */
export const valueThreshold = 0.45;
/** The same for changed words that are not values ("blue-green" → "canary"). */
export const wordThreshold = 0.55;
/** Below this cosine a lexical "updates" is taken back: the statements are not about one thing. */
export const sameThingThreshold = 0.45;
/** How many of the nearest earlier memories of the scope a new memory is compared with. */
export const correctionCandidates = 10;

// Function words of the other languages the rules read (English ones are in stopwords.ts): they
// say nothing of a subject or a value.
const functionWords = new Set(
  `der die das den dem des ein eine einer einem einen und oder ist sind war am im um zu zur zum vom von mit fur auf aus bei jeden jede jedes unser unsere unserer mein meine
  le la les un une des du de et ou est sont au aux en dans pour par sur chaque notre nos mon ma mes se
  el los las una unos unas del al es son esta estan en por para con cada nuestro nuestra mi mis lo que y`.split(
    /\s+/,
  ),
);
// Words that say the newer statement adds to the older one rather than replacing it.
const additionPattern =
  /(?<![\p{L}\p{N}])(also|too|as well|additionally|in addition|auch|zusätzlich|ebenfalls|außerdem|aussi|également|en plus|también|además|asimismo)(?![\p{L}\p{N}])/u;
// Words that say a value changed: a changed verb then still names the same slot.
const changePattern =
  /(?<![\p{L}\p{N}])(now|no longer|instead|changed|moved|switched|relocated|rescheduled|replaced|became|actually|correction|jetzt|nun|inzwischen|stattdessen|maintenant|désormais|plutôt|ahora|ya no|en cambio)(?![\p{L}\p{N}])/u;
const changeWords = new RegExp(changePattern.source, "giu");
// A copula joins two names of one thing, so either side may be the subject.
const copulas = new Set([
  "is",
  "are",
  "was",
  "were",
  "am",
  "ist",
  "sind",
  "war",
  "waren",
  "est",
  "sont",
  "était",
  "es",
  "son",
  "era",
  "eran",
  "está",
  "están",
]);
// The first copula or verb that separates a subject from what is said about it, in the languages
// the rules read. Not French "a" (English article) or "se".
const separatorPattern = new RegExp(
  `(?<![\\p{L}\\p{N}])(${[
    ...copulas,
    ..."will uses use prefers prefer runs run has have had likes like lives live works work wants want needs need loves love hates hate owns drives drive speaks speak costs cost equals means becomes became remains stays moved starts start started ends end ended happen happens lands closes opens leaves lasts goes reports manages plays accepts supports integrates shows takes writes requires returns joined serves deploy deploys".split(
      " ",
    ),
    ..."hat haben wohnt lebt arbeitet läuft beginnt kostet findet finden spricht akzeptiert befindet dauert".split(
      " ",
    ),
    ..."lieu ont habite vit travaille commence coûte tourne parle livrons trouve".split(" "),
    ..."vive trabaja empieza cuesta usa tiene habla acepta reside".split(" "),
  ].join("|")})(?![\\p{L}\\p{N}])`,
  "u",
);
const dayAndMonthNames = new Set(
  `monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays saturdays sundays
  january february march april may june july august september october november december
  montag dienstag mittwoch donnerstag freitag samstag sonntag januar februar marz mai juni juli oktober dezember
  lundi mardi mercredi jeudi vendredi samedi dimanche janvier fevrier mars avril juin juillet aout septembre octobre novembre decembre
  lunes martes miercoles jueves viernes sabado domingo enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre`.split(
    /\s+/,
  ),
);

/** What the correction rules need from one text, computed once per text. */
export interface CorrectionProfile {
  terms: ReadonlySet<string>;
  /** Terms that hold a value: names, numbers, days and months. */
  values: ReadonlySet<string>;
  /** Terms of capitalised words that are names (not acronyms): a person, a place, a product. */
  names: ReadonlySet<string>;
  /** The terms before the separating verb, and after it; null when no verb was found. */
  subject: ReadonlySet<string> | null;
  predicate: ReadonlySet<string> | null;
  /** The separating verb's term, and whether it is a copula. */
  verb: string | null;
  copula: boolean;
  addition: boolean;
  change: boolean;
}

/** The terms of a text: stems of its index words and one-digit numbers ("at 9" → "at 11" is a
 * change of value), without function words of any language read. */
function termsOf(text: string): string[] {
  return textTerms(text)
    .filter((word) => (isIndexTerm(word) || /^\p{N}$/u.test(word)) && !functionWords.has(word))
    .map(termOf);
}

/** The terms of the words of `text` that hold values, and of those that are names. */
function valueTerms(text: string): { values: Set<string>; names: Set<string> } {
  const values = new Set<string>();
  const names = new Set<string>();
  const multiWordNames = new Set(
    extractEntities(text)
      .filter((entity) => entity.includes(" "))
      .flatMap((entity) => entity.split(" ")),
  );
  const words = text.normalize("NFKC").matchAll(/[\p{L}\p{N}\p{M}]+/gu);
  let first = true;
  for (const match of words) {
    const word = match[0];
    const before = text.slice(0, match.index).trimEnd();
    const sentenceStart = first || /[.!?:;]$/.test(before);
    first = false;
    const capitalised = /^[\p{Lu}\p{Lt}]/u.test(word);
    const acronym = word.length > 1 && word === word.toUpperCase() && /\p{L}/u.test(word);
    const name = capitalised && !acronym && (!sentenceStart || multiWordNames.has(word.toLowerCase()));
    const value = name || acronym || /\p{N}/u.test(word) || (capitalised && !sentenceStart);
    const terms = termsOf(word);
    const folded = textTerms(word)[0];
    const day = folded !== undefined && dayAndMonthNames.has(folded);
    for (const term of terms) {
      if (value || day) values.add(term);
      if (name) names.add(term);
    }
  }
  return { values, names };
}

export function correctionProfile(content: string): CorrectionProfile {
  const lower = content.normalize("NFKC").toLowerCase();
  const separator = separatorPattern.exec(lower);
  const { values, names } = valueTerms(content);
  // An auxiliary is not the verb: "will be held" and "will last" are two slots.
  const verb =
    separator === null
      ? null
      : separator[1] === "will"
        ? `will ${/^\s*([\p{L}\p{N}]+)/u.exec(lower.slice(separator.index + 4))?.[1] ?? ""}`
        : termOf(separator[1]);
  return {
    terms: new Set(termsOf(content)),
    values,
    names,
    // A change marker is no part of the subject: "Correction: the meetup starts at 7pm".
    subject:
      separator === null
        ? null
        : new Set(termsOf(content.slice(0, separator.index).replace(changeWords, " "))),
    predicate:
      separator === null ? null : new Set(termsOf(content.slice(separator.index + separator[0].length))),
    verb,
    copula: separator !== null && copulas.has(separator[1]),
    addition: additionPattern.test(lower),
    change: changePattern.test(lower),
  };
}

function every(items: ReadonlySet<string>, test: (item: string) => boolean): boolean {
  for (const item of items) if (!test(item)) return false;
  return true;
}

function some(items: ReadonlySet<string>, test: (item: string) => boolean): boolean {
  for (const item of items) if (test(item)) return true;
  return false;
}

/** Whether the older statement's subject is still what the newer one is about. */
function sameSubject(newer: CorrectionProfile, older: CorrectionProfile): boolean {
  if (older.subject !== null && older.subject.size > 0) {
    const kept = every(older.subject, (term) => newer.terms.has(term));
    // A copula read the other way: the subject side changed a name, the other side is kept.
    const inverted =
      older.copula &&
      older.predicate !== null &&
      older.predicate.size > 0 &&
      every(older.predicate, (term) => newer.terms.has(term)) &&
      every(older.subject, (term) => newer.terms.has(term) || older.names.has(term));
    if (!kept && !inverted) return false;
  }
  // The newer subject adds no word that describes something else ("Jamal's sister").
  if (newer.subject !== null)
    return every(newer.subject, (term) => older.terms.has(term) || newer.values.has(term));
  return true;
}

/**
 * The confidence that `newer` corrects `older` (their cosine, 0–1, 4 decimal places), or null.
 * `similarity` is the cosine of the two statements' vectors.
 */
export function correctionConfidence(
  newer: CorrectionProfile,
  older: CorrectionProfile,
  similarity: number,
  thresholds: { value: number; word: number } = { value: valueThreshold, word: wordThreshold },
): number | null {
  if (newer.addition) return null;
  const removed = new Set([...older.terms].filter((term) => !newer.terms.has(term)));
  const added = new Set([...newer.terms].filter((term) => !older.terms.has(term)));
  const keptAny = some(newer.terms, (term) => older.terms.has(term));
  if (removed.size === 0 || added.size === 0 || !keptAny) return null;
  if (!sameSubject(newer, older)) return null;
  const values =
    some(removed, (term) => older.values.has(term)) && some(added, (term) => newer.values.has(term));
  // The same slot: the same verb, unless the newer one says the value changed. A verb found on
  // one side only, or on neither, names no common slot ("The release train leaves every second
  // Tuesday." → "A release train bundles features every second week.", "Stable statement number
  // 0 about quokkas0." → "… number 1 about quokkas1.").
  if (newer.verb !== older.verb && !newer.change) return null;
  if (newer.verb === null && older.verb === null && !newer.change) return null;
  if (similarity < (values ? thresholds.value : thresholds.word)) return null;
  return Math.round(Math.min(1, similarity) * 10_000) / 10_000;
}

/**
 * The relation from `newer` to `older` with embeddings on: the lexical one (relations.ts), made
 * an update when the newer statement corrects the older one by meaning. `similarity` is the
 * cosine of their vectors.
 */
export function detectRelationByMeaning(
  newer: { content: string },
  older: { content: string },
  similarity: number,
): DetectedRelation | null {
  const lexical = detectRelation(newer, older);
  const newerProfile = correctionProfile(newer.content);
  const olderProfile = correctionProfile(older.content);
  if (lexical?.type === "updates") {
    // Taken back when the meaning says otherwise: far apart ("Our office is in Berlin." →
    // "Our office has a rooftop terrace."), or the same terms inflected ("Lena is living in
    // Hamburg."): related, and the older statement stays current.
    const restated =
      newerProfile.terms.size === olderProfile.terms.size &&
      every(newerProfile.terms, (term) => olderProfile.terms.has(term));
    return similarity < sameThingThreshold || restated ? { ...lexical, type: "related" } : lexical;
  }
  const confidence = correctionConfidence(newerProfile, olderProfile, similarity);
  if (confidence === null) return lexical;
  return { type: "updates", confidence: Math.max(confidence, lexical?.confidence ?? 0) };
}
