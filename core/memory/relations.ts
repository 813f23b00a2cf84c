/**
 * Relation detection between a newly written memory and an older one (docs/memory.md#relations): the edge
 * goes from the newer (source) to the older (target). "updates" means the newer memory states a
 * new value for what the older one said, and the store then supersedes the older row.
 */

import { extractEntities, sharedEntities } from "./entities.ts";
import { meaningfulTokens } from "./tokenize.ts";

import type { DetectedRelationType } from "./vocabulary.ts";

export type { DetectedRelationType };

export interface DetectedRelation {
  type: DetectedRelationType;
  /** 0–1, rounded to 4 decimal places. */
  confidence: number;
}

// An update needs less word overlap than other edges: a changed value replaces words.
const updateSimilarityThreshold = 0.25;
const otherSimilarityThreshold = 0.45;
// Subjects "match" when they share at least this share of the larger subject's tokens.
const sameSubjectOverlap = 0.75;
// Confidence from shared entities: a base plus a step per shared entity, capped at 1.
const entityConfidenceBase = 0.35;
const entityConfidenceStep = 0.15;

const updateMarkerPattern =
  /\b(now|as of|currently|instead|no longer|changed|used to|rescheduled|replaced|superseded|retired)\b/;
// Words that add to what was said rather than replace it: "The API now also supports CSV".
const additionPattern = /\b(also|too|as well|additionally|in addition)\b/;
const updateMarkerWords = new Set(["now", "currently", "instead", "longer", "changed"]);
// The first copula or verb that separates a subject from the value stated about it.
const subjectSeparatorPattern =
  /\b(is|are|was|were|am|uses|use|prefers|prefer|runs|run|has|have|had|likes|like|lives|live|works|work|wants|want|needs|need|loves|love|hates|hate|owns|drives|speaks|costs|equals|means|becomes|became|remains|stays|moved|starts|started|ends|ended)\b/i;

interface Subject {
  tokens: Set<string>;
  entities: string[];
}

function subjectOf(text: string): Subject | null {
  const separator = subjectSeparatorPattern.exec(text);
  if (separator === null) return null;
  const prefix = text.slice(0, separator.index);
  const tokens = new Set(meaningfulTokens(prefix).filter((token) => !updateMarkerWords.has(token)));
  if (tokens.size === 0) return null;
  return { tokens, entities: extractEntities(prefix) };
}

function intersectionSize(first: ReadonlySet<string>, second: ReadonlySet<string>): number {
  let count = 0;
  for (const item of first) if (second.has(item)) count++;
  return count;
}

function isSubset(first: ReadonlySet<string>, second: ReadonlySet<string>): boolean {
  return intersectionSize(first, second) === first.size;
}

/** Jaccard similarity of two token sets; 0 when both are empty. */
export function jaccardSimilarity(first: ReadonlySet<string>, second: ReadonlySet<string>): number {
  const shared = intersectionSize(first, second);
  const union = first.size + second.size - shared;
  return union === 0 ? 0 : shared / union;
}

/** The entities a text names in full: a word that is only part of a longer name is left out. */
function fullNames(entities: readonly string[]): string[] {
  const parts = new Set(
    entities.filter((entity) => entity.includes(" ")).flatMap((entity) => entity.split(" ")),
  );
  return entities.filter((entity) => entity.includes(" ") || !parts.has(entity));
}

/** Both subjects name someone or something, and not the same: no full name of either appears
 * among the other's entities ("Project Apollo" vs "Project Zeus"; but "Paul" may be "Amala Paul"). */
function clearlyDifferentEntities(first: Subject, second: Subject): boolean {
  if (first.entities.length === 0 || second.entities.length === 0) return false;
  const firstAll = new Set(first.entities);
  const secondAll = new Set(second.entities);
  return (
    !fullNames(first.entities).some((entity) => secondAll.has(entity)) &&
    !fullNames(second.entities).some((entity) => firstAll.has(entity))
  );
}

function isUpdate(newer: RelationProfile, older: RelationProfile): boolean {
  // Nothing changed: the same statement again is not an update of itself.
  if (newer.tokens.size === older.tokens.size && isSubset(newer.tokens, older.tokens)) return false;
  // "Now also", "too": the newer statement adds to the older one, which stays current.
  if (newer.addition) return false;
  const newerSubject = newer.subject;
  const olderSubject = older.subject;
  const bothSubjects = newerSubject !== null && olderSubject !== null;
  if (bothSubjects && clearlyDifferentEntities(newerSubject, olderSubject)) return false;
  if (newer.marker) {
    // A marker updates the same thing only: "The API now uses OAuth" does not replace a
    // statement about the dashboard.
    return !(bothSubjects && intersectionSize(newerSubject.tokens, olderSubject.tokens) === 0);
  }
  if (!bothSubjects) return false;
  const overlap =
    intersectionSize(newerSubject.tokens, olderSubject.tokens) /
    Math.max(newerSubject.tokens.size, olderSubject.tokens.size);
  // The same subject with a different value: neither statement merely adds to the other.
  return (
    overlap >= sameSubjectOverlap &&
    !isSubset(newer.tokens, older.tokens) &&
    !isSubset(older.tokens, newer.tokens)
  );
}

/**
 * A sorted array of the words' 32-bit FNV-1a hashes, one per word (equal hashes kept): two texts'
 * arrays share at least as many entries as the texts share words, since a shared word has one
 * hash on both sides and words of equal hash only add matches. Relation detection uses them to
 * pass over the pairs that cannot be related without comparing their words.
 */
function hashes(words: Iterable<string>): Uint32Array {
  const found: number[] = [];
  for (const word of words) {
    let hash = 0x811c9dc5;
    for (let index = 0; index < word.length; index++) {
      hash ^= word.charCodeAt(index);
      hash = Math.imul(hash, 0x01000193);
    }
    found.push(hash >>> 0);
  }
  return Uint32Array.from(found).sort();
}

/** How many entries two sorted hash arrays share (each entry matched once). */
function sharedHashes(first: Uint32Array, second: Uint32Array): number {
  let count = 0;
  let left = 0;
  let right = 0;
  while (left < first.length && right < second.length) {
    if (first[left] === second[right]) {
      count++;
      left++;
      right++;
    } else if (first[left] < second[right]) left++;
    else right++;
  }
  return count;
}

/** What relation detection needs from one text, computed once and reusable for every pair. */
export interface RelationProfile {
  tokens: ReadonlySet<string>;
  /** `hashes` of `tokens` and of `entities`. */
  tokenHashes: Uint32Array;
  entityHashes: Uint32Array;
  entities: readonly string[];
  /** The same entities as a set, for the many pairs a profile takes part in. */
  entitySet: ReadonlySet<string>;
  subject: Subject | null;
  /** The text carries an update marker ("now", "instead", "no longer"…). */
  marker: boolean;
  /** The text says it adds to something ("also", "too", "as well"…): it updates nothing. */
  addition: boolean;
}

export function relationProfile(content: string): RelationProfile {
  const entities = extractEntities(content);
  const tokens = new Set(meaningfulTokens(content));
  const lower = content.toLowerCase();
  return {
    tokens,
    tokenHashes: hashes(tokens),
    entityHashes: hashes(entities),
    entities,
    entitySet: new Set(entities),
    subject: subjectOf(content),
    marker: updateMarkerPattern.test(lower),
    addition: additionPattern.test(lower),
  };
}

/** The relation from `newer` to `older`, or null when they are not related. */
export function detectRelation(
  newer: { content: string },
  older: { content: string },
): DetectedRelation | null {
  return detectProfileRelation(relationProfile(newer.content), relationProfile(older.content));
}

/**
 * Whether two texts may be related: false only when they share no entity and their word
 * similarity is below every threshold, which holds for most pairs (93 % of those an import
 * compares). Worked out from the hashes, whose shared count is at least the shared word count,
 * so the similarity it bounds is at least the real one: a pair it passes over is one
 * `classifyRelation` finds unrelated.
 */
export function mayRelate(newer: RelationProfile, older: RelationProfile): boolean {
  if (sharedHashes(newer.entityHashes, older.entityHashes) > 0) return true;
  const shared = sharedHashes(newer.tokenHashes, older.tokenHashes);
  const union = newer.tokens.size + older.tokens.size - shared;
  return union > 0 && shared / union >= updateSimilarityThreshold;
}

/** `detectRelation` over profiles, for comparing one text with many without re-analysing it. */
export function detectProfileRelation(
  newer: RelationProfile,
  older: RelationProfile,
): DetectedRelation | null {
  return mayRelate(newer, older) ? classifyRelation(newer, older) : null;
}

/** The relation from `newer` to `older` worked out in full, or null. */
export function classifyRelation(newer: RelationProfile, older: RelationProfile): DetectedRelation | null {
  const similarity = jaccardSimilarity(newer.tokens, older.tokens);
  const shared = sharedEntities(newer.entities, older.entitySet);
  // Below the lowest threshold with no shared entity, no type can be kept: skip classifying.
  if (similarity < updateSimilarityThreshold && shared.length === 0) return null;

  let type: DetectedRelationType;
  if (isUpdate(newer, older)) type = "updates";
  else if (newer.tokens.size > older.tokens.size) type = "extends";
  else type = "related";

  const threshold = type === "updates" ? updateSimilarityThreshold : otherSimilarityThreshold;
  if (similarity < threshold) {
    if (shared.length === 0) return null;
    // Too little word overlap to claim more, but they talk about the same named thing.
    type = "related";
  }
  // As documented: every kept edge has at least the base confidence.
  const entityConfidence = Math.min(1, entityConfidenceBase + entityConfidenceStep * shared.length);
  const confidence = Math.max(similarity, entityConfidence);
  return { type, confidence: Math.round(confidence * 10_000) / 10_000 };
}
