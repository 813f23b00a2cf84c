/**
 * Seeded random strings for the memory fuzz tests: hostile query syntax, mixed scripts, emoji,
 * combining marks, zero-width characters and lone surrogates. Seeded, so a failure reproduces.
 */
import { seededRandom } from "./seeded-random.ts";

const pieces = [
  '"',
  "'",
  "*",
  "^",
  "(",
  ")",
  ":",
  "-",
  "+",
  "AND",
  "OR",
  "NOT",
  "NEAR",
  "NEAR(",
  "{",
  "}",
  "\\",
  "%",
  "_",
  ";",
  "--",
  "/*",
  "\0",
  "\u200b",
  "\u200d",
  "\ufeff",
  "\u202e",
  " ",
  "\n",
  "\t",
  "é",
  "e\u0301",
  "ß",
  "İ",
  "ǅ",
  "ﬁ",
  "Ａ",
  "１",
  "😀",
  "👩‍👩‍👧",
  "🇩🇪",
  "\ud800",
  "\udfff",
  "中文",
  "蓝色",
  "かな",
  "カタカナ",
  "한국어",
  "हिन्दी",
  "العربية",
  "עברית",
  "ไทย",
  "Ελληνικά",
  "русский",
  "\u0301",
  "\u20dd",
  "𝔘𝔫𝔦",
  "Ⅻ",
  "²",
  "½",
  "blue",
  "green",
  "favorite",
  "color",
  "the",
  "a",
  "is",
  "2024-03-05",
  "x".repeat(80),
];

/** `count` strings of up to `maxLength` characters, reproducible for a given seed. */
export function fuzzStrings(count: number, maxLength: number, seed = 20_240_305): string[] {
  const random = seededRandom(seed);
  const strings: string[] = [];
  for (let index = 0; index < count; index++) {
    let text = "";
    const target = Math.floor(random() * maxLength);
    while (text.length < target) {
      if (random() < 0.7) text += pieces[Math.floor(random() * pieces.length)];
      else text += String.fromCodePoint(Math.floor(random() * 0x30000));
    }
    strings.push(text.slice(0, maxLength));
  }
  return strings;
}
