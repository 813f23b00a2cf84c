/**
 * The noisy account's calls for test/bench/noisy-neighbour.ts: the most expensive request of each
 * kind the API accepts (worst-case patterns, the largest bodies, the most output), the sandbox
 * files they run over, and the texts that make imports and ingests detect relations. Texts are
 * seeded and built from a pool, so eight clients send 16 MiB bodies without the bench's own CPU
 * (it shares the machine with the server) becoming the load.
 */
import { seededRandom } from "../support/seeded-random.ts";

/** A request as the bench sends it: path under the base URL, method, JSON body. */
export interface NoisyRequest {
  method: "GET" | "POST" | "PUT";
  path: string;
  body?: string;
}

/** The server's body limit (SVC_MAX_BODY_BYTES default, docs/configuration.md), less room for headers. */
const bodyLimitBytes = 16 * 1024 * 1024 - 64 * 1024;
const importMemories = 500;
const importRelations = 2_000;
const ingestCharacters = 262_144;
const recallCharacters = 400;

const random = seededRandom(7);
const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];

// A few thousand made-up words and some names: long texts share many words and entities, so a
// new memory is related to the ones stored before it (relation detection compares them all).
const syllables = [
  "ka",
  "lo",
  "mi",
  "ter",
  "van",
  "dus",
  "pre",
  "qui",
  "zon",
  "bel",
  "rha",
  "sto",
  "nek",
  "fi",
];
const words = Array.from({ length: 4_000 }, () =>
  Array.from({ length: 2 + Math.floor(random() * 3) }, () => pick(syllables)).join(""),
);
const names = [
  "Project Apollo",
  "Amala Paul",
  "Charles Darwin",
  "Nadia Okafor",
  "Hiro Tanaka",
  "Berlin",
  "Kubernetes",
];

function sentence(): string {
  const length = 8 + Math.floor(random() * 14);
  const body = Array.from({ length }, () => pick(words)).join(" ");
  return `${pick(names)} uses ${body}. `;
}

function text(characters: number): string {
  let result = "";
  while (result.length < characters) result += sentence();
  return result.slice(0, characters);
}

/** JSON-escaped texts to build import bodies from (plain ASCII: escaping changes nothing). */
const importContentLength = Math.floor(
  (bodyLimitBytes - importRelations * 120 - importMemories * 120) / importMemories,
);
const contentPool = Array.from({ length: 16 }, () => text(importContentLength - 40));

let importNumber = 0;
/** 500 memories of new content (so each is inserted, not merged) and 2,000 relations among them. */
export function importBody(): string {
  const batch = importNumber++;
  const memories = Array.from({ length: importMemories }, (_, index) => {
    const content = `Import ${batch} note ${index}: ${contentPool[(batch + index) % contentPool.length]}`;
    return `{"id":"m${index}","scope":"noisy","kind":"fact","content":${JSON.stringify(content)}}`;
  });
  const relations = Array.from({ length: importRelations }, (_, index) => {
    const source = index % importMemories;
    const target = (index * 7 + 1) % importMemories;
    return `{"source_memory_id":"m${source}","target_memory_id":"m${target}","relation_type":"related","confidence":0.5}`;
  });
  const body = `{"memories":[${memories.join(",")}],"relations":[${relations.join(",")}]}`;
  if (body.length > bodyLimitBytes) throw new Error(`import body ${body.length} B over the body limit`);
  return body;
}

// Ingest keeps at most 50 fragments: 50 sentences of a 50th of the text each are the most work.
const ingestSentences = 50;
const ingestPool = Array.from({ length: ingestSentences }, () =>
  text(Math.floor(ingestCharacters / ingestSentences) - 60).replaceAll(".", ","),
);
let ingestNumber = 0;
/** The largest ingest: 256 KiB in 50 long sentences, new each call (so none is merged). */
export function ingestBody(): string {
  const call = ingestNumber++;
  const content = ingestPool.map((part, index) => `Ingest ${call} part ${index} ${part}.`).join("\n");
  return JSON.stringify({ content: content.slice(0, ingestCharacters), scope: "noisy" });
}

/** A 400-character query of the stored words. */
export function recallQuery(): string {
  return text(recallCharacters);
}

// Worst-case inputs for backtracking matchers: the patterns and their subjects.
export const backtrackingLine = `${"a".repeat(40)}!`;
export const backtrackingFileName = "a".repeat(60);
export const allowlistRules = [{ command: "ls", args_allow: ["^(a|a)*$"] }, "yes", "head"];

/** One exec that lays out the files the file calls search (the 50,000-file tree and the subjects). */
export const setUpFilesCommand = [
  "mkdir -p regex many",
  `printf '%s\\n' '${backtrackingLine}' > regex/line.txt`,
  `touch regex/${backtrackingFileName}`,
  "cd many",
  // 50 directories of 1,000 files, each with a line grep finds.
  "for d in $(seq 1 50); do mkdir d$d; (cd d$d && seq 1 1000 | sed 's/$/.txt/' | xargs touch); done",
  'for d in d*; do for f in $d/1*.txt; do echo "needle in $f" > $f; done; done',
  "find . -type f | wc -l",
].join(" && ");

/** The noisy account's call kinds, each the most expensive request of its kind. */
export function noisyKinds(sessionId: string): Record<string, () => NoisyRequest> {
  const files = (operation: string, body: unknown): NoisyRequest => ({
    method: "POST",
    path: `/v1/sandboxes/${sessionId}/files/${operation}`,
    body: JSON.stringify(body),
  });
  const exec = (command: string): NoisyRequest => ({
    method: "POST",
    path: `/v1/sandboxes/${sessionId}/exec`,
    body: JSON.stringify({ command, timeout: 60 }),
  });
  return {
    "grep (a|a)*": () => files("grep", { pattern: "^(a|a)*$", path: "/workspace/regex" }),
    "grep (.*a){20}": () => files("grep", { pattern: "(.*a){20}", path: "/workspace/regex" }),
    "glob *a*a…b": () => files("glob", { pattern: "*a*a*a*a*a*a*a*a*b", path: "/workspace/regex" }),
    "allowlist exec": () => exec(`ls ${backtrackingLine}`),
    import: () => ({ method: "POST", path: "/v1/memory/import", body: importBody() }),
    ingest: () => ({ method: "POST", path: "/v1/memory/ingest", body: ingestBody() }),
    "exec 1 MiB": () => exec("yes aaaaaaaaaaaaaaa | head -c 1048576"),
    "grep 50k files": () => files("grep", { pattern: "needle", path: "/workspace/many", max_matches: 5000 }),
    "glob 50k files": () => files("glob", { pattern: "**/*.txt", path: "/workspace/many" }),
    recall: () => ({
      method: "GET",
      path: `/v1/memory/search?q=${encodeURIComponent(recallQuery())}&limit=50`,
    }),
  };
}
