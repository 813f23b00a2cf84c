/**
 * Realistic memories and queries for the memory benchmark: sentences over a vocabulary of about
 * 4,000 words drawn with Zipf-like frequencies (a few very common words, a long tail of rare
 * ones), people's names, project names and dates. Seeded, so every run loads the same corpus.
 */
import { seededRandom } from "../support/seeded-random.ts";

// Common English content words for the head of the distribution (the stopwords come from the
// sentence templates, as in real text).
const commonWords =
  `time person year way day thing man world life hand part child eye woman place work week case
point government company number group problem fact meeting project team customer deploy release database server
issue bug feature design review plan budget report deadline office phone email message call question answer
price cost order invoice payment account password login user client service system network cache queue worker
job task ticket sprint roadmap goal target metric dashboard alert incident outage backup restore migration schema
index query latency error warning test build branch merge commit version update upgrade config setting option
coffee tea lunch dinner breakfast recipe kitchen garden house apartment car bike train flight hotel trip travel
holiday weekend birthday party gift doctor dentist appointment school class course book movie music song game
sport football tennis running gym yoga swimming health sleep diet vegetarian allergy cat dog pet family friend
brother sister mother father parent wife husband partner colleague manager boss intern candidate interview hire
salary contract lawyer bank loan mortgage tax insurance rent bill subscription laptop keyboard monitor mouse
printer camera screen battery charger cable router wifi password printer storage disk memory cpu cluster node pod
container image registry kubernetes docker terraform ansible python typescript javascript rust golang java sql
postgres sqlite redis kafka nginx linux macos windows android ios browser chrome firefox safari editor vim emacs
prefer like love hate want need use run ship fix write read send receive schedule cancel move change start finish
blue green red black white yellow orange purple grey brown dark light quiet loud fast slow early late morning
afternoon evening night monday tuesday wednesday thursday friday saturday sunday january february march april
may june july august september october november december spring summer autumn winter today tomorrow yesterday
new old big small long short high low good bad best worst important urgent private public remote local weekly
daily monthly quarterly annual first last next previous final draft approved rejected pending blocked done`
    .split(/\s+/)
    .filter((word) => word !== "");

const firstNames =
  `Alice Bob Carol David Emma Farid Grace Hiro Ines Jonas Kofi Lena Mateo Nadia Omar Priya Quentin
Rosa Sven Tariq Uma Viktor Wei Ximena Yusuf Zoe Amara Bruno Chloe Dmitri Elif Felix Gita Hugo Ivana Jamal Keiko Luca
Maya Nils Olga Pablo Rania Sami Tomas Valeria`
    .split(/\s+/)
    .filter((word) => word !== "");
const lastNames =
  `Smith Garcia Tanaka Mueller Rossi Kowalski Okafor Nguyen Silva Novak Jensen Haddad Ivanova Park
Costa Dubois Fischer Moreau Sato Chen Patel Khan Lopez Berg Santos`
    .split(/\s+/)
    .filter((word) => word !== "");
const monthNames = commonWords.slice(commonWords.indexOf("january"), commonWords.indexOf("december") + 1);

const onsets = [
  "b",
  "br",
  "c",
  "ch",
  "d",
  "dr",
  "f",
  "g",
  "gr",
  "h",
  "j",
  "k",
  "l",
  "m",
  "n",
  "p",
  "pl",
  "r",
  "s",
  "sh",
  "st",
  "t",
  "tr",
  "v",
  "w",
  "z",
];
const vowels = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "io"];
const codas = ["", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ck", "x"];

/** The vocabulary in rank order: common words first, then a long tail of word-like tokens. */
function buildVocabulary(size: number, random: () => number): string[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const words = [...new Set(commonWords)];
  const seen = new Set(words);
  while (words.length < size) {
    const syllables = 1 + Math.floor(random() * 3);
    let word = "";
    for (let index = 0; index < syllables; index++) word += pick(onsets) + pick(vowels) + pick(codas);
    if (word.length > 2 && !seen.has(word)) {
      seen.add(word);
      words.push(word);
    }
  }
  return words;
}

/** Draws ranks 0..n-1 with probability proportional to 1 / (rank + 1)^exponent. */
function zipfSampler(size: number, exponent: number, random: () => number): () => number {
  const cumulative = new Float64Array(size);
  let total = 0;
  for (let rank = 0; rank < size; rank++) {
    total += 1 / (rank + 1) ** exponent;
    cumulative[rank] = total;
  }
  return () => {
    const target = random() * total;
    let low = 0;
    let high = size - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle] < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

export interface BenchMemory {
  content: string;
  scope: string;
  kind: string;
  importance: number;
  event_dates?: string[];
}

export function createCorpus(seed: number) {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const vocabulary = buildVocabulary(4_000, random);
  const rank = zipfSampler(vocabulary.length, 1.05, random);
  const word = () => vocabulary[rank()];
  const words = (count: number) => Array.from({ length: count }, word).join(" ");
  const person = () => `${pick(firstNames)} ${pick(lastNames)}`;
  const date = () =>
    `${pick(monthNames)} ${1 + Math.floor(random() * 28)}, ${2023 + Math.floor(random() * 4)}`;
  const scopes = [
    "default",
    "work",
    "personal",
    "project-atlas",
    "project-zephyr",
    "support",
    "hiring",
    "travel",
  ];
  const scopeRank = zipfSampler(scopes.length, 1, random);
  const kinds = ["fact", "preference", "goal", "instruction", "note", "summary"];
  const templates: (() => string)[] = [
    () => `${person()} prefers ${words(2)} for the ${words(2)}`,
    () => `${person()} said the ${words(3)} is ${words(2)} since ${date()}`,
    () => `The ${word()} ${word()} deadline moved to ${date()} because of the ${words(3)}`,
    () => `Remember that ${person()} works on ${words(2)} with ${person()} and the ${word()} team`,
    () => `On ${date()} we decided to ${words(2)} the ${words(3)} before the ${word()} review`,
    () => `Always ${word()} the ${words(2)} before you ${word()} ${words(2)}`,
    () => `${person()} is allergic to ${word()} and likes ${words(2)} in the ${word()}`,
    () => `Meeting notes: ${words(6)}. ${person()} will ${words(4)} by ${date()}. ${words(5)}.`,
    () => `The ${word()} ${word()} uses ${words(2)} and ${words(2)}, not ${word()}`,
    () => `Goal for ${pick(monthNames)}: ${words(3)} the ${words(3)} and ${words(2)}`,
  ];

  return {
    vocabulary,
    memory(): BenchMemory {
      const memory: BenchMemory = {
        content: pick(templates)(),
        scope: scopes[scopeRank()],
        kind: pick(kinds),
        importance: Math.round(random() * 100) / 100,
      };
      if (random() < 0.2) memory.event_dates = [date()];
      return memory;
    },
    /** A search the way people type one: a couple of content words, a name, a dated question. */
    query(): { q: string; scope?: string } {
      const roll = random();
      // Queries lean on mid-frequency words: nobody searches for the most common word alone.
      const contentWord = () => vocabulary[Math.min(vocabulary.length - 1, 20 + rank())];
      let q: string;
      if (roll < 0.35) q = `${contentWord()} ${contentWord()}`;
      else if (roll < 0.55) q = `${contentWord()} ${contentWord()} ${contentWord()}`;
      else if (roll < 0.7) q = `what does ${pick(firstNames)} prefer for ${contentWord()}`;
      else if (roll < 0.8) q = `${person()} ${contentWord()}`;
      else if (roll < 0.9) q = `deadline ${pick(monthNames)} ${contentWord()}`;
      else q = `what was the previous ${contentWord()} ${contentWord()}`;
      return random() < 0.2 ? { q, scope: scopes[scopeRank()] } : { q };
    },
  };
}
