import { describe, expect, it } from "vitest";
import {
  asksWhen,
  extractEventDates,
  inQueryPeriod,
  maxEventDates,
  mentionsTime,
  queryPeriod,
  unionDates,
} from "./dates.ts";

// Wednesday 13 March 2024, late in the UTC day: relative dates use the UTC calendar day.
const wednesday = new Date("2024-03-13T23:30:00Z");

describe("extractEventDates", () => {
  it.each([
    ["Released on 2024-03-05.", ["2024-03-05"]],
    ["Starts 2024-03-05T10:00:00Z sharp", ["2024-03-05"]],
    ["Due 2025/3/7 and 2025/12/31", ["2025/3/7", "2025/12/31"]],
    ["Met on March 9, 2024 and Mar. 10 2024 and June 1st, 2023", ["2024-03-09", "2024-03-10", "2023-06-01"]],
    ["Born 5 March 2024, again on the 5th of March 2024", ["2024-03-05"]],
    ["The same day twice: 2024-03-05 and March 5, 2024", ["2024-03-05"]],
    // Not real dates or outside the 20YY pattern.
    ["2024-02-30, 2024-13-01, February 30, 2024, 1999-01-01, 12024-01-01, 2024/03/05/07", []],
    ["Relative phrases need a document date: yesterday, next Friday", []],
  ])("%j → %j", (text, expected) => {
    expect(extractEventDates(text, null)).toEqual(expected);
  });

  it.each([
    ["yesterday", ["2024-03-12"]],
    ["today and tonight", ["2024-03-13"]],
    ["Tomorrow", ["2024-03-14"]],
    ["last Friday", ["2024-03-08"]],
    ["last Wednesday", ["2024-03-06"]],
    ["this Monday", ["2024-03-11"]],
    ["this Sunday", ["2024-03-17"]],
    ["next Monday", ["2024-03-18"]],
    ["next Wednesday", ["2024-03-20"]],
    ["3 days ago", ["2024-03-10"]],
    ["two weeks ago", ["2024-02-28"]],
    ["a week ago", ["2024-03-06"]],
    ["in 10 days", ["2024-03-23"]],
    ["within three weeks", ["2024-04-03"]],
    [
      "Yesterday (2024-03-12) we planned the launch for next Friday, 2024-03-15.",
      ["2024-03-12", "2024-03-15"],
    ],
    ["nowadays, someday, days ago", []],
  ])("%j with a document date → %j", (text, expected) => {
    expect(extractEventDates(text, wednesday)).toEqual(expected);
  });

  it("ignores an invalid document date", () => {
    expect(extractEventDates("yesterday", new Date("not a date"))).toEqual([]);
  });

  it("keeps at most maxEventDates dates", () => {
    const text = Array.from(
      { length: 30 },
      (_, index) => `2024-01-${String(index + 1).padStart(2, "0")}`,
    ).join(" ");
    const dates = extractEventDates(text, null);
    expect(dates).toHaveLength(maxEventDates);
    expect(dates[0]).toBe("2024-01-01");
  });
});

describe("unionDates", () => {
  it("keeps first occurrences, case-insensitively", () => {
    expect(
      unionDates([
        ["2024-03-05", "a"],
        ["A", "2024-03-06", "2024-03-05"],
      ]),
    ).toEqual(["2024-03-05", "a", "2024-03-06"]);
  });
});

describe("mentionsTime and asksWhen", () => {
  it.each([
    ["We repainted the living room last Saturday", true],
    ["Saw Coldplay live two weeks ago", true],
    ["Passed my driving test yesterday, second try!", true],
    ["Traffic was a nightmare this morning.", true],
    ["We moved in June, then again on 2024-03-05", true],
    ["Back in 1998 we had no phones", true],
    ["Work is fine, same old same old.", false],
    ["The meeting room on the fifth floor", false],
  ])("mentionsTime(%j) is %s", (text, expected) => {
    expect(mentionsTime(text)).toBe(expected);
  });

  it.each([
    ["When did Maya run a half marathon?", true],
    ["  when was the party", true],
    ["What date is the wedding?", true],
    ["How long ago did we meet?", true],
    ["What does Maya do when it rains?", false],
    ["Where is the party?", false],
  ])("asksWhen(%j) is %s", (query, expected) => {
    expect(asksWhen(query)).toBe(expected);
  });
});

describe("queryPeriod and inQueryPeriod", () => {
  const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);
  it.each([
    [
      "What painting did Melanie show on October 13, 2023?",
      { start: day("2023-10-13"), end: day("2023-10-14") },
    ],
    ["What did Gina find on 1 February, 2023?", { start: day("2023-02-01"), end: day("2023-02-02") }],
    ["What happened on 2024-02-29?", { start: day("2024-02-29"), end: day("2024-03-01") }],
    ["What did Maria donate in December 2023?", { start: day("2023-12-01"), end: day("2024-01-01") }],
    [
      "What did Mel paint in their latest project in July, 2023?",
      { start: day("2023-07-01"), end: day("2023-08-01") },
    ],
    [
      "How many times has Melanie gone to the beach in 2023?",
      { start: day("2023-01-01"), end: day("2024-01-01") },
    ],
    ["When did Melanie go camping in June?", { monthOfYear: 6 }],
    ["What did I do yesterday?", { start: day("2024-03-12"), end: day("2024-03-13") }],
    ["What did we ship last week?", { start: day("2024-03-04"), end: day("2024-03-11") }],
    ["Where did we go last weekend?", { start: day("2024-03-09"), end: day("2024-03-11") }],
    ["What changed last month?", { start: day("2024-02-01"), end: day("2024-03-01") }],
    ["Which books did I read last year?", { start: day("2023-01-01"), end: day("2024-01-01") }],
    ["What did I decide this week?", { start: day("2024-03-11"), end: day("2024-03-18") }],
  ])("%j", (query, expected) => {
    expect(queryPeriod(query, wednesday)).toEqual(expected);
  });

  it.each([
    "What does Maya do for work?",
    "May I ask what Maya likes?",
    "Who may come to the party?",
    "What happened on February 30, 2023?",
    "How many 2023 models did he sell?",
  ])("%j names no time", (query) => {
    expect(queryPeriod(query, wednesday)).toBeNull();
  });

  it("ends at the period, plus the slack for when a memory was said", () => {
    const october = queryPeriod("on October 13, 2023", wednesday);
    if (october === null) throw new Error("no period");
    expect(inQueryPeriod(october, Date.parse("2023-10-13T18:20:00Z"), [], 0)).toBe(true);
    expect(inQueryPeriod(october, Date.parse("2023-10-14T00:00:00Z"), [], 0)).toBe(false);
    expect(inQueryPeriod(october, Date.parse("2023-10-16T00:00:00Z"), [], 7)).toBe(true);
    expect(inQueryPeriod(october, Date.parse("2023-10-12T23:59:59Z"), [], 7)).toBe(false);
    // A memory about the day, said at another time.
    expect(inQueryPeriod(october, Date.parse("2024-01-01T00:00:00Z"), ["2023-10-13"], 0)).toBe(true);
    expect(inQueryPeriod(october, Date.parse("2024-01-01T00:00:00Z"), ["next Friday"], 0)).toBe(false);
    const june = queryPeriod("in June", wednesday);
    if (june === null) throw new Error("no period");
    expect(inQueryPeriod(june, Date.parse("2021-06-30T12:00:00Z"), [], 0)).toBe(true);
    expect(inQueryPeriod(june, Date.parse("2021-07-05T12:00:00Z"), [], 7)).toBe(true);
    expect(inQueryPeriod(june, Date.parse("2021-07-09T12:00:00Z"), [], 7)).toBe(false);
    expect(inQueryPeriod(june, Date.parse("2021-01-09T12:00:00Z"), ["2019-06-02"], 0)).toBe(true);
  });
});
