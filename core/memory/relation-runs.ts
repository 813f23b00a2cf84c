/**
 * The comparisons of one link run (link-writes.ts), wherever they are worked out: on a relation
 * thread (platform/relation-threads.ts) or on the serving thread in slices
 * (`createInlineRelationDetection`, below). A run holds the texts it was sent, in the order sent, and
 * each text's analysis, so the window of recent rows every job is compared with is sent and
 * analysed once per run, not once per job.
 */
import { LRUCache } from "lru-cache";
import { createSlices } from "../event-loop-turns.ts";
import type { RelationDetection } from "../ports/relation-detection.ts";
import {
  type DetectedRelation,
  detectProfileRelation,
  type RelationProfile,
  relationProfile,
} from "./relations.ts";

/** An estimate of a profile's memory: about two bytes a character of key, its token set, and
 * 700 bytes of objects (sets, hash arrays, subject) whatever the text: memory-corpus.ts's rows
 * (82 characters) measured 1,621 bytes of heap each, which the estimate without them put at 925. */
const profileSize = (profile: RelationProfile, content: string) =>
  700 + 4 * content.length + 64 * profile.tokens.size;

// Profiles of recently seen contents, across link runs: each remember is compared with the same
// window of recent rows, so their analysis is reused instead of redone per write. Emptied a
// minute after their last use, so an idle server does not keep an import's analyses.
const sharedProfiles = new LRUCache<string, RelationProfile>({
  maxSize: 16 * 1024 * 1024,
  sizeCalculation: profileSize,
  ttl: 60_000,
  updateAgeOnGet: true,
  ttlAutopurge: true,
});

let analysed = 0;
/** How many texts this thread has analysed for relation detection (tests tell where it ran). */
export const textsAnalysedHere = () => analysed;

/**
 * The profiles of one link run. It compares every job with the same window of up to 100 rows, in
 * the same order: a cache smaller than that window drops each profile just before its next use
 * (64 KiB rows fill the shared one with about 20), and then every comparison analysed both texts
 * again, 50,000 analyses of a 500-memory import. This one holds the window of the largest rows;
 * it is dropped with the run.
 */
export function createRunProfiles(analyse: (content: string) => RelationProfile = relationProfile) {
  const profiles = new LRUCache<string, RelationProfile>({
    maxSize: 96 * 1024 * 1024,
    sizeCalculation: profileSize,
  });
  return (content: string): RelationProfile => {
    // A hit is already the run's most recent (`get` moves it): setting it again weighed it again
    // for nothing (an import of 30,000: the relation thread busy 4.3 s before, 3.8 s after).
    let profile = profiles.get(content);
    if (profile !== undefined) return profile;
    profile = sharedProfiles.get(content);
    if (profile === undefined) {
      profile = analyse(content);
      analysed++;
      sharedProfiles.set(content, profile);
    }
    profiles.set(content, profile);
    return profile;
  };
}

export interface RelationRunTexts {
  /** Appends texts to the run's table; pairs name texts by their place in it. */
  add(texts: readonly string[]): void;
  /** The relation from the newer text to the older one, or null when they are not related. */
  detect(newer: number, older: number): DetectedRelation | null;
}

export function createRelationRunTexts(): RelationRunTexts {
  const table: string[] = [];
  const profileOf = createRunProfiles();
  const text = (index: number) => {
    const content = table[index];
    if (content === undefined) throw new RangeError(`no text ${index} in this link run`);
    return content;
  };
  return {
    add(texts) {
      for (const content of texts) table.push(content);
    },
    detect: (newer, older) => detectProfileRelation(profileOf(text(newer)), profileOf(text(older))),
  };
}

/** Comparisons on the calling thread, giving it back between any two. */
export function createInlineRelationDetection(): RelationDetection {
  return {
    start() {
      const run = createRelationRunTexts();
      const slices = createSlices();
      return {
        async compare(texts, pairs) {
          run.add(texts);
          const relations: Array<DetectedRelation | null> = [];
          for (let index = 0; index < pairs.length; index += 2) {
            // A 64 KiB text takes milliseconds to analyse: the thread goes back between any two.
            await slices.pause();
            relations.push(run.detect(pairs[index], pairs[index + 1]));
          }
          return relations;
        },
        end() {},
      };
    },
    close: async () => {},
  };
}
