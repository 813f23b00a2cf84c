import { isDeepStrictEqual } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import { seededRandom } from "../test/support/seeded-random.ts";
import { createSlices } from "./event-loop-turns.ts";
import { deepestNesting, JsonLimitError, parseJsonInSlices, widestContainer } from "./json-in-slices.ts";

/** What JSON.parse makes of a text: its value, or that it refused it. */
function parsedOrRefused(text: string): { value: unknown } | "refused" {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return "refused";
  }
}

async function slicedOrRefused(
  text: string,
  pieceCharacters: number,
): Promise<{ value: unknown } | "refused"> {
  try {
    return { value: await parseJsonInSlices(text, { pieceCharacters }) };
  } catch (error) {
    expect(error).toBeInstanceOf(SyntaxError);
    return "refused";
  }
}

/** Random JSON texts with what JSON.parse must agree on: escapes, surrogates, odd keys, spacing. */
function randomJson(random: () => number): string {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  const space = () => pick(["", "", " ", "\n  ", "\t", "\r\n"]);
  const characters = [
    "a",
    "é",
    "😀",
    "\\n",
    '\\"',
    "\\\\",
    "\\u00e9",
    "\\ud83d\\ude00",
    "\\ud83d",
    "\udc00",
    "/",
    "\\/",
  ];
  const string = () => {
    const length = Math.floor(random() ** 3 * 80);
    return `"${Array.from({ length }, () => pick(characters)).join("")}"`;
  };
  const value = (depth: number): string => {
    const kind =
      depth > 5
        ? pick(["string", "number", "literal"])
        : pick(["string", "number", "literal", "array", "object", "object"]);
    if (kind === "string") return string();
    if (kind === "number")
      return pick(["0", "-1", "3.25", "1e3", "-0.5E-2", "12345678901234567890", "1e400"]);
    if (kind === "literal") return pick(["true", "false", "null"]);
    const count = Math.floor(random() * 8);
    if (kind === "array")
      return `[${space()}${Array.from({ length: count }, () => value(depth + 1)).join(`${space()},${space()}`)}${space()}]`;
    const key = () => pick([string(), '"__proto__"', '"a"', '"a"', '"constructor"', '"0"', '"10"']);
    return `{${space()}${Array.from({ length: count }, () => `${key()}${space()}:${space()}${value(depth + 1)}`).join(`${space()},${space()}`)}${space()}}`;
  };
  return `${space()}${value(0)}${space()}`;
}

describe("JSON in slices", () => {
  afterEach(() => vi.restoreAllMocks());

  it("gives exactly what JSON.parse gives, for every way through a text", async () => {
    const random = seededRandom(39);
    let checked = 0;
    for (let text = 0; text < 400; text++) {
      const json = randomJson(random);
      // Pieces longer than the generator's longest number (20 characters).
      for (const piece of [24, 40, 200]) {
        const sliced = await slicedOrRefused(json, piece);
        // Node's comparison tells an own "__proto__" key from a prototype (vitest's sees none).
        expect(isDeepStrictEqual(sliced, parsedOrRefused(json)), `${json} in pieces of ${piece}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBe(1_200);
  });

  it("refuses what JSON.parse refuses, wherever a text is broken", async () => {
    const random = seededRandom(45);
    const breakers = [
      "",
      ",",
      "]",
      "}",
      "[",
      "{",
      ":",
      '"',
      "\\",
      "x",
      "\u0001",
      " ",
      "tru",
      "01",
      "-",
      "1.",
    ];
    let refused = 0;
    for (let text = 0; text < 400; text++) {
      const json = randomJson(random);
      const at = Math.floor(random() * (json.length + 1));
      const cut = Math.floor(random() * 3);
      const broken =
        json.slice(0, at) + breakers[Math.floor(random() * breakers.length)] + json.slice(at + cut);
      const expected = parsedOrRefused(broken);
      if (expected === "refused") refused++;
      for (const piece of [24, 64])
        expect(
          isDeepStrictEqual(await slicedOrRefused(broken, piece), expected),
          `${broken} in pieces of ${piece}`,
        ).toBe(true);
    }
    // The broken texts mostly are broken: refusals are what this test is about.
    expect(refused).toBeGreaterThan(250);
    for (const text of [
      "[1,]",
      '{"a":1,}',
      "[1 2]",
      '{"a" 1}',
      '{"a":1]',
      "[1}",
      "[",
      '"abc',
      "[1] x",
      "{1:2}",
    ])
      expect(await slicedOrRefused(`${text}${" ".repeat(40)}`, 16), text).toBe("refused");
  });

  it("hands JSON.parse a 16 MiB import body a piece at a time, giving the thread back between pieces", async () => {
    const memories = Array.from(
      { length: 500 },
      (_, index) =>
        `{"id":"m${index}","content":${JSON.stringify(`note ${index} ${"words and more ".repeat(2_200)}`)}}`,
    );
    const relations = Array.from(
      { length: 2_000 },
      (_, index) => `{"source_memory_id":"m${index % 500}","target_memory_id":"m1"}`,
    );
    const body = `{"memories":[${memories.join(",")}],"relations":[${relations.join(",")}]}`;
    expect(body.length).toBeGreaterThan(16_000_000);
    const expected = JSON.parse(body);

    const lengths: number[] = [];
    const parse = JSON.parse;
    vi.spyOn(JSON, "parse").mockImplementation((text: string, reviver?: Parameters<typeof parse>[1]) => {
      lengths.push(text.length);
      return parse(text, reviver);
    });
    // Slices of no time: every pause gives the thread back, so the count is the pieces' count.
    let turns = 0;
    const slices = createSlices(0);
    const counted = {
      pause: () => {
        turns++;
        return slices.pause();
      },
    };
    const value = await parseJsonInSlices(body, { slices: counted });
    vi.restoreAllMocks();

    expect(value).toStrictEqual(expected);
    // A run of small values is parsed once it is over a piece (64 KiB): at most two pieces at once.
    expect(Math.max(...lengths)).toBeLessThanOrEqual(2 * 64 * 1024 + 2);
    expect(lengths.reduce((sum, length) => sum + length, 0)).toBeLessThan(body.length * 1.01);
    expect(turns).toBeGreaterThan(body.length / (2 * 64 * 1024));
  });

  it("parses long strings and keys in pieces, and refuses nesting and numbers it cannot slice", async () => {
    const long = `${'é\\n\\u00e9\\\\\\"😀'.repeat(30_000)}`;
    for (const text of [`"${long}"`, `{"${long}":["${long}",1]}`, `[${"1,".repeat(90_000)}2]`]) {
      const lengths: number[] = [];
      const parse = JSON.parse;
      vi.spyOn(JSON, "parse").mockImplementation((part: string) => {
        lengths.push(part.length);
        return parse(part);
      });
      const value = await parseJsonInSlices(text);
      vi.restoreAllMocks();
      expect(value).toStrictEqual(JSON.parse(text));
      expect(Math.max(...lengths)).toBeLessThanOrEqual(2 * 64 * 1024 + 2);
    }
    // JSON.parse would spend 140 ms on a 16 MiB number; none over a piece is taken.
    await expect(parseJsonInSlices(`[${"1".repeat(70_000)}]`)).rejects.toThrow(
      "Number longer than 65536 characters",
    );
    const deep = `${"[".repeat(deepestNesting + 1)}${" ".repeat(70_000)}${"]".repeat(deepestNesting + 1)}`;
    await expect(parseJsonInSlices(deep)).rejects.toThrow(JsonLimitError);
    const deepEnough = `${"[".repeat(deepestNesting)}${" ".repeat(70_000)}${"]".repeat(deepestNesting)}`;
    expect(await parseJsonInSlices(deepEnough)).toStrictEqual(JSON.parse(deepEnough));
    // An object's key table grows in steps of 150 ms past a million keys: wider is refused.
    const members = (count: number) =>
      `{${Array.from({ length: count }, (_, index) => `"k${index}":1`).join(",")}}`;
    await expect(parseJsonInSlices(members(widestContainer + 1))).rejects.toThrow("more than 100000 members");
    await expect(parseJsonInSlices(`[${"1,".repeat(widestContainer)}1]`)).rejects.toThrow(JsonLimitError);
    expect(Object.keys((await parseJsonInSlices(members(widestContainer))) as object)).toHaveLength(
      widestContainer,
    );
  });
});
