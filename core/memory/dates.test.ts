import { describe, expect, it } from "vitest";
import { asksWhen, extractEventDates, maxEventDates, mentionsTime, unionDates } from "./dates.ts";

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
