/**
 * Seeded generator of the memory parity corpus: writes (varied kinds and scopes, overlapping
 * vocabulary, update markers that supersede, expiring rows, duplicates, non-Latin text, emoji,
 * hostile punctuation) and queries (plain, phrases, history phrasing, FTS5 operators, 400-char
 * strings, stopwords only, scope filters, limits). The same seed always gives the same corpus.
 */
import { seededRandom } from "../support/seeded-random.ts";

export interface ParityWrite {
  body: Record<string, unknown>;
  /** Milliseconds the clock moves after this write. */
  advance: number;
}

export interface ParityQuery {
  q: string;
  scope?: string;
  limit?: number;
}

const people = ["Alice Moreau", "Bob Tanaka", "Chen Wei", "Dmitri Volkov", "Priya Sharma", "José Álvarez"];
const projects = ["Apollo", "Zeus", "Hermes", "Atlas"];
const colors = ["blue", "green", "red", "teal", "orange", "purple"];
const drinks = ["green tea", "black coffee", "oat latte", "sparkling water", "matcha"];
const tools = ["lint", "typecheck", "unit test", "integration test", "security scan"];
const days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"];
const months = ["January", "March", "May", "July", "September", "November"];
const scopes = ["default", "work", "home", "project-apollo", "équipe"];
const kinds = ["fact", "preference", "goal", "instruction", "note", "summary"];
const words =
  "deploy pipeline database postgres sqlite kubernetes cluster backup restore migration schema index query latency budget invoice customer release branch review meeting agenda roadmap incident outage alert dashboard metric token cache queue worker cron report design mobile desktop browser server laptop keyboard garden kitchen travel flight hotel train weekend birthday dinner recipe".split(
    " ",
  );
const nonLatin = [
  "我喜欢在周末喝绿茶",
  "東京のオフィスは月曜日に閉まります",
  "Москва — столица, встреча в понедельник",
  "مرحبا بالعالم اجتماع الفريق يوم الثلاثاء",
  "नमस्ते दुनिया परियोजना की समय सीमा शुक्रवार है",
  "Καλημέρα κόσμε, η συνάντηση είναι αύριο",
  "안녕하세요 회의는 화요일입니다",
  "Straße und Café in München",
];
const emoji = ["🚀", "🎉", "✅", "👍🏽", "🔥", "☕", "👩‍💻", "🇫🇷"];
const hostileContent = [
  'He said "ship it" AND then NOT before Friday',
  "NEAR(tea coffee) is FTS5 syntax; column:value too",
  "C++ and C# are both fine, e-mail me at ops@example.com",
  "zz top plays zzz and zz1 at the zzfe festival",
  "ﬁle ＡＰＩ ｔｅａ café cafe\u0301",
  "50% off_sale; DROP TABLE memories; -- not really",
  "^caret *star (paren) [bracket] {brace} \\backslash",
  "nul\u0000byte and a lone \ud800 surrogate in the tea notes",
];

export function generateWrites(seed: number, count: number): ParityWrite[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const sentence = (length: number) => Array.from({ length }, () => pick(words)).join(" ");
  const writes: ParityWrite[] = [];
  for (let index = 0; writes.length < count; index++) {
    const person = pick(people);
    const project = pick(projects);
    const roll = random();
    let content: string;
    let kind = pick(kinds);
    if (roll < 0.12) {
      content = `${person}'s favorite color is ${random() < 0.5 ? "now " : ""}${pick(colors)}`;
      kind = "preference";
    } else if (roll < 0.22) {
      content =
        random() < 0.5
          ? `The Project ${project} deadline is ${pick(days)} ${pick(months)} ${1 + Math.floor(random() * 28)}`
          : `The Project ${project} deadline was rescheduled to ${pick(months)} ${1 + Math.floor(random() * 28)}`;
      kind = "fact";
    } else if (roll < 0.32) {
      content = `${person} ${random() < 0.3 ? "now " : ""}prefers ${pick(drinks)} in the ${random() < 0.5 ? "morning" : "afternoon"}`;
    } else if (roll < 0.4) {
      content = `Always run the ${pick(tools)} checks before merging the ${pick(words)} branch`;
      kind = "instruction";
    } else if (roll < 0.48) {
      content = `${person} works on Project ${project} with the ${pick(words)} team`;
    } else if (roll < 0.56) {
      content = `${pick(nonLatin)} ${random() < 0.5 ? pick(nonLatin) : ""}`.trim();
    } else if (roll < 0.62) {
      content = `${pick(emoji)} ${sentence(3)} ${pick(emoji)}${pick(emoji)} Project ${project}`;
    } else if (roll < 0.67) {
      content = pick(hostileContent);
    } else if (roll < 0.72 && writes.length > 0) {
      // A duplicate: the same identity again (upsert), sometimes with a new importance.
      const earlier = pick(writes).body;
      writes.push({
        body: { ...earlier, importance: random() < 0.5 ? earlier.importance : 1 },
        advance: 30_000 + Math.floor(random() * 90_000),
      });
      continue;
    } else {
      content = `${sentence(4 + Math.floor(random() * 10))} for ${person} on ${pick(days)}`;
      if (kind === "summary") content = `${content}. ${sentence(12)}. ${sentence(8)}.`;
    }
    const body: Record<string, unknown> = {
      content,
      scope: pick(scopes),
      kind,
      importance: pick([0, 0.25, 0.5, 0.8, 1]),
    };
    const expiry = random();
    // Offsets from the write's clock: negative is already expired, positive expires mid-run.
    if (expiry < 0.06) body.expires_in = -3_600_000;
    else if (expiry < 0.14) body.expires_in = 60_000 * (5 + Math.floor(random() * 200));
    if (random() < 0.15) body.event_dates = [`${pick(months)} ${1 + Math.floor(random() * 28)}`];
    if (random() < 0.1) body.metadata = { source: "parity", index };
    // Two writes in three belong to one of four sessions (by position, so the draws above stay
    // the same): with embeddings on, each is embedded after the row before it in its session,
    // which may have expired or been superseded by then.
    if (index % 3 !== 0) body.source_session_id = `parity-session-${index % 4}`;
    writes.push({ body, advance: 30_000 + Math.floor(random() * 90_000) });
  }
  return writes;
}

const hostileQueries = [
  '"',
  '"unbalanced quote',
  "tea AND coffee",
  "NOT blue",
  "blue OR",
  "NEAR(tea coffee)",
  "NEAR(deploy, 2)",
  "deploy*",
  "^deploy",
  "content:deploy",
  "tokens:blue",
  "(green OR teal) AND NOT red",
  "-deploy",
  "--",
  "'; drop table memories; --",
  "%_%",
  "\\",
  "🚀",
  "👍🏽 🎉",
  "the and of",
  "is was were",
  " ",
  "?",
  "a",
  "\u0000tea",
  "zz",
  "zzfe",
  "zz74656",
  "ＡＰＩ",
  "file",
  "café",
  "cafe",
  "straße",
  "C++",
  "ops@example.com",
  "周末",
  "绿茶",
  "東京",
  "Москва",
  "понедельник",
  "مرحبا",
  "परियोजना",
  "회의는",
  "κόσμε",
];

const historyQueries = [
  "what was my favorite color before",
  "what was Alice Moreau's favorite color before",
  "previous Project Apollo deadline",
  "old deadline for Project Zeus",
  "Bob Tanaka used to prefer",
  "originally the deadline was",
  "former favorite color of Chen Wei",
];

export function generateQueries(seed: number, count: number, writes: readonly ParityWrite[]): ParityQuery[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const queries: ParityQuery[] = [
    ...hostileQueries.map((q) => ({ q })),
    ...historyQueries.map((q) => ({ q })),
    { q: "x".repeat(400) },
    {
      q: Array.from({ length: 80 }, () => pick(words))
        .join(" ")
        .slice(0, 400),
    },
    {
      q: Array.from({ length: 200 }, () => pick(emoji))
        .join("")
        .slice(0, 400),
    },
  ];
  while (queries.length < count) {
    const roll = random();
    let q: string;
    if (roll < 0.3) q = pick(words);
    else if (roll < 0.5) q = `${pick(words)} ${pick(words)}${random() < 0.5 ? ` ${pick(words)}` : ""}`;
    else if (roll < 0.7) {
      // A phrase lifted from a stored memory, so exact and near phrase matches are exercised.
      const terms = String(pick(writes).body.content).split(" ");
      const start = Math.floor(random() * terms.length);
      q = terms.slice(start, start + 2 + Math.floor(random() * 3)).join(" ");
    } else if (roll < 0.8) q = pick(people).split(" ")[random() < 0.5 ? 0 : 1];
    else if (roll < 0.9) q = `Project ${pick(projects)} ${pick(["deadline", "team", "color", ""])}`.trim();
    else q = pick([...colors, ...drinks, ...tools]);
    const query: ParityQuery = { q };
    if (random() < 0.3) query.scope = pick([...scopes, "nowhere"]);
    if (random() < 0.4) query.limit = pick([1, 3, 10, 50]);
    queries.push(query);
  }
  queries.push({ q: "tea", scope: "nul\u0000scope" }, { q: "tea\ud800", scope: "\ud800" });
  // Every query also runs with a scope filter once in a while (hostile ones included).
  for (let index = 0; index < hostileQueries.length; index += 5) {
    queries.push({ q: hostileQueries[index], scope: pick(scopes), limit: 50 });
  }
  return queries;
}
