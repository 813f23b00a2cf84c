/**
 * Event-date extraction for ingest (docs/memory.md#ingest, step 4): the dates a text talks
 * about, as strings for a memory's `event_dates`. Explicit dates are always found; relative
 * phrases ("yesterday", "next Friday", "3 weeks ago") only when a document date anchors them.
 * All calendar arithmetic is in UTC.
 */

/** A memory holds at most this many event dates (the `event_dates` limit of docs/api.md#memory). */
export const maxEventDates = 16;
// Relative offsets beyond this many days are more likely a misreading than a real plan.
const maxRelativeDays = 3660;
const dayInMilliseconds = 86_400_000;

const monthNames = "january february march april may june july august september october november december";
// Full month names, three-letter abbreviations and "sept".
const monthNumbers = new Map<string, number>([
  ...monthNames.split(" ").map((name, index) => [name, index + 1] as const),
  ...monthNames.split(" ").map((name, index) => [name.slice(0, 3), index + 1] as const),
  ["sept", 9],
]);
const monthAlternatives = [...monthNumbers.keys()].join("|");
// Monday-first, matching how "this Friday" is read: the Friday of the current week.
const weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
// Spelled-out amounts: "a week ago", "in three days".
const numberWords = new Map<string, number>([
  ["a", 1],
  ["an", 1],
  ..."one two three four five six seven eight nine ten eleven twelve"
    .split(" ")
    .map((word, index) => [word, index + 1] as const),
]);
const amount = `(\\d{1,4}|${[...numberWords.keys()].join("|")})`;

const isoPattern = /(?<![\d-])20\d{2}-\d{2}-\d{2}(?!\d)/g;
const slashPattern = /(?<![\d/])20\d{2}\/\d{1,2}\/\d{1,2}(?![\d/])/g;
const monthFirstPattern = new RegExp(
  `\\b(${monthAlternatives})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`,
  "gi",
);
const dayFirstPattern = new RegExp(
  `\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?(${monthAlternatives})\\.?,?\\s+(\\d{4})\\b`,
  "gi",
);
const dayWordPattern = /\b(yesterday|today|tonight|tomorrow)\b/gi;
const weekdayPattern = new RegExp(`\\b(last|this|next)\\s+(${weekdays.join("|")})\\b`, "gi");
const agoPattern = new RegExp(`\\b${amount}\\s+(days?|weeks?)\\s+ago\\b`, "gi");
const aheadPattern = new RegExp(`\\b(?:in|within)\\s+${amount}\\s+(days?|weeks?)\\b`, "gi");

interface FoundDate {
  index: number;
  value: string;
}

/** "YYYY-MM-DD" for a real calendar date, or null (February 30th is not a date). */
function isoDate(year: number, month: number, day: number): string | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    return null;
  }
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

function isRealDate(raw: string): boolean {
  const [year, month, day] = raw.split(/[-/]/).map(Number);
  return isoDate(year, month, day) !== null;
}

function addDays(anchor: Date, days: number): string {
  return new Date(anchor.getTime() + days * dayInMilliseconds).toISOString().slice(0, 10);
}

function parseAmount(text: string): number {
  return numberWords.get(text.toLowerCase()) ?? Number(text);
}

function unitDays(unit: string): number {
  return unit.toLowerCase().startsWith("week") ? 7 : 1;
}

function relativeDates(text: string, documentDate: Date): FoundDate[] {
  const anchor = new Date(
    Date.UTC(documentDate.getUTCFullYear(), documentDate.getUTCMonth(), documentDate.getUTCDate()),
  );
  const today = (anchor.getUTCDay() + 6) % 7; // Monday = 0
  const found: FoundDate[] = [];
  const push = (index: number, days: number): void => {
    if (Math.abs(days) <= maxRelativeDays) found.push({ index, value: addDays(anchor, days) });
  };
  const dayOffsets: Record<string, number> = { yesterday: -1, today: 0, tonight: 0, tomorrow: 1 };
  for (const match of text.matchAll(dayWordPattern)) push(match.index, dayOffsets[match[1].toLowerCase()]);
  for (const match of text.matchAll(weekdayPattern)) {
    const target = weekdays.indexOf(match[2].toLowerCase());
    const which = match[1].toLowerCase();
    if (which === "this") push(match.index, target - today);
    // "last Friday": the latest Friday before today; "next Friday": the first one after it.
    else if (which === "last") push(match.index, -((today - target + 6) % 7) - 1);
    else push(match.index, ((target - today + 6) % 7) + 1);
  }
  for (const match of text.matchAll(agoPattern)) {
    push(match.index, -parseAmount(match[1]) * unitDays(match[2]));
  }
  for (const match of text.matchAll(aheadPattern)) {
    push(match.index, parseAmount(match[1]) * unitDays(match[2]));
  }
  return found;
}

/**
 * The event dates of a text in reading order, de-duplicated, at most `maxEventDates`:
 * `20YY-MM-DD` and `20YY/M/D` as written, "March 5[,] 2024" (and "5 March 2024") as ISO dates,
 * and, when `documentDate` is given, relative phrases resolved against it as ISO dates.
 */
export function extractEventDates(text: string, documentDate: Date | null): string[] {
  const found: FoundDate[] = [];
  for (const pattern of [isoPattern, slashPattern]) {
    for (const match of text.matchAll(pattern)) {
      if (isRealDate(match[0])) found.push({ index: match.index, value: match[0] });
    }
  }
  for (const match of text.matchAll(monthFirstPattern)) {
    const value = isoDate(Number(match[3]), monthNumbers.get(match[1].toLowerCase()) ?? 0, Number(match[2]));
    if (value !== null) found.push({ index: match.index, value });
  }
  for (const match of text.matchAll(dayFirstPattern)) {
    const value = isoDate(Number(match[3]), monthNumbers.get(match[2].toLowerCase()) ?? 0, Number(match[1]));
    if (value !== null) found.push({ index: match.index, value });
  }
  if (documentDate !== null && !Number.isNaN(documentDate.getTime())) {
    found.push(...relativeDates(text, documentDate));
  }
  // Stable sort: equal positions keep the order the patterns were tried in.
  found.sort((first, second) => first.index - second.index);
  return unionDates([found.map((date) => date.value)]);
}

const hasYear = /\d{4}/;

/**
 * The text with its written dates ("March 14, 2026", "14th of March 2026") in ISO form, so that
 * search matches them with the same day written "2026-03-14" (tokenize.ts `normaliseText`), and
 * not with another day of March. A date that is no real day stays as written.
 */
export function writtenDatesAsIso(text: string): string {
  if (!hasYear.test(text)) return text;
  const iso = (match: string, year: string, month: string, day: string) =>
    isoDate(Number(year), monthNumbers.get(month.toLowerCase()) ?? 0, Number(day)) ?? match;
  return text
    .replace(monthFirstPattern, (match, month: string, day: string, year: string) =>
      iso(match, year, month, day),
    )
    .replace(dayFirstPattern, (match, day: string, month: string, year: string) =>
      iso(match, year, month, day),
    );
}

/** The union of several date lists: first occurrences in order, case-insensitive, capped. */
export function unionDates(lists: ReadonlyArray<readonly string[]>): string[] {
  const seen = new Set<string>();
  const result: string[] = [];
  for (const list of lists) {
    for (const value of list) {
      const key = value.toLowerCase();
      if (seen.has(key) || result.length >= maxEventDates) continue;
      seen.add(key);
      result.push(value);
    }
  }
  return result;
}

// A time a text talks about, for ranking (docs/memory.md#search): everything extraction resolves,
// and the vaguer phrases people use in conversation ("last weekend", "this morning", "in June").
const timeMentionPattern = new RegExp(
  [
    "\\b(yesterday|today|tonight|tomorrow)\\b",
    "\\b(this|last|yesterday) (morning|afternoon|evening|night)\\b",
    `\\b(last|this|next|on) (${weekdays.join("|")}|week|weekend|month|year|spring|summer|autumn|fall|winter)\\b`,
    `\\b${amount} (days?|weeks?|months?|years?) (ago|later|before)\\b`,
    `\\b(in|since|until|by|early|late) (${monthNames.replaceAll(" ", "|")})\\b`,
    `\\b(${monthAlternatives})\\.? \\d{1,2}(st|nd|rd|th)?\\b`,
    "\\b(19|20)\\d{2}\\b",
  ].join("|"),
  "i",
);
// A question asking for a time: "When did…", "What date…", "How long ago…".
const asksWhenPattern =
  /^\W*(when|what (day|date|time|year|month|week)|which (day|date|year|month|week)|how long ago)\b/i;

/** Whether a text mentions a time (a date, a weekday, "yesterday", "two weeks ago", "in June"). */
export function mentionsTime(text: string): boolean {
  return timeMentionPattern.test(text);
}

/** Whether a query asks when something happened ("When did Maya run a half marathon?"). */
export function asksWhen(query: string): boolean {
  return asksWhenPattern.test(query.normalize("NFKC"));
}

/** A span of UTC milliseconds (`end` exclusive), or a month of any year (1–12). */
export type QueryPeriod = { start: number; end: number } | { monthOfYear: number };

const utcDay = (year: number, month: number, day: number) => Date.UTC(year, month - 1, day);
const monthYearPattern = new RegExp(`\\b(${monthAlternatives})\\.?,?\\s+((?:19|20)\\d{2})\\b`, "i");
const monthAlonePattern = new RegExp(
  `\\b(?:in|during|since|until|by|early|late|mid|of|last|this)[\\s-]+(${monthAlternatives})\\b`,
  "i",
);
const yearAlonePattern = /\b(?:in|during|of|since|until|by)\s+((?:19|20)\d{2})\b/i;
const spanPattern = /\b(yesterday|today|this (?:week|month|year)|last (?:week|weekend|month|year))\b/i;

/**
 * The time a query asks about, when it names one (docs/memory.md#search): a day ("on October 13,
 * 2023", "2023-10-13"), a month ("in July 2023"), a year ("in 2023"), a month of any year ("in
 * June"), or a span before `now` ("yesterday", "last week", "last month", "last year"). Times are
 * UTC milliseconds, `end` exclusive. A query naming several takes the first of these kinds it
 * names, in this order; null when it names none.
 */
export function queryPeriod(query: string, now: Date): QueryPeriod | null {
  const text = query.normalize("NFKC");
  const day = extractEventDates(text.replace(dayWordPattern, ""), null)[0];
  if (day !== undefined) {
    const [year, month, date] = day.split(/[-/]/).map(Number);
    return { start: utcDay(year, month, date), end: utcDay(year, month, date + 1) };
  }
  const monthYear = monthYearPattern.exec(text);
  if (monthYear !== null) {
    const month = monthNumbers.get(monthYear[1].toLowerCase()) ?? 1;
    const year = Number(monthYear[2]);
    return { start: utcDay(year, month, 1), end: utcDay(year, month + 1, 1) };
  }
  const year = yearAlonePattern.exec(text);
  if (year !== null) return { start: utcDay(Number(year[1]), 1, 1), end: utcDay(Number(year[1]) + 1, 1, 1) };
  const month = monthAlonePattern.exec(text);
  // "may" is also a verb: only "in May", "since May", … name the month.
  if (month !== null) return { monthOfYear: monthNumbers.get(month[1].toLowerCase()) ?? 1 };
  const span = spanPattern.exec(text);
  if (span === null || Number.isNaN(now.getTime())) return null;
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth() + 1;
  const d = now.getUTCDate();
  const monday = d - ((now.getUTCDay() + 6) % 7);
  switch (span[1].toLowerCase()) {
    case "yesterday":
      return { start: utcDay(y, m, d - 1), end: utcDay(y, m, d) };
    case "today":
      return { start: utcDay(y, m, d), end: utcDay(y, m, d + 1) };
    case "this week":
      return { start: utcDay(y, m, monday), end: utcDay(y, m, monday + 7) };
    case "last week":
      return { start: utcDay(y, m, monday - 7), end: utcDay(y, m, monday) };
    case "last weekend":
      return { start: utcDay(y, m, monday - 2), end: utcDay(y, m, monday) };
    case "this month":
      return { start: utcDay(y, m, 1), end: utcDay(y, m + 1, 1) };
    case "last month":
      return { start: utcDay(y, m - 1, 1), end: utcDay(y, m, 1) };
    case "this year":
      return { start: utcDay(y, 1, 1), end: utcDay(y + 1, 1, 1) };
    default:
      return { start: utcDay(y - 1, 1, 1), end: utcDay(y, 1, 1) };
  }
}

/**
 * Whether a memory said at `saidAt` (its document date, else when it was written), or about one
 * of `eventDates`, falls in `period`. What is said about a time often comes up to `slackDays`
 * after it ("last week I …"), so the end is extended by that much for the time it was said.
 */
export function inQueryPeriod(
  period: QueryPeriod,
  saidAt: number,
  eventDates: readonly string[] | undefined,
  slackDays: number,
): boolean {
  const slack = slackDays * dayInMilliseconds;
  if ("monthOfYear" in period) {
    const said = new Date(saidAt);
    const before = new Date(saidAt - slack);
    if (said.getUTCMonth() + 1 === period.monthOfYear || before.getUTCMonth() + 1 === period.monthOfYear)
      return true;
    return (eventDates ?? []).some((date) => Number(date.split(/[-/]/)[1]) === period.monthOfYear);
  }
  if (saidAt >= period.start && saidAt < period.end + slack) return true;
  return (eventDates ?? []).some((date) => {
    const [year, month, day] = date.split(/[-/]/).map(Number);
    const time = utcDay(year, month, day);
    return time >= period.start && time < period.end;
  });
}
