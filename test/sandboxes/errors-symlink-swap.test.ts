/**
 * A directory swapped for a symlink while a file operation walks through it (a concurrent exec
 * racing the file API) is a client-side race, not a server failure: every answer is a 2xx or a
 * 4xx (403 path_outside_sandbox, 404, 422), never a 5xx. Over REST on a real bubblewrap sandbox;
 * the swapping runs inside the sandbox, as an attacker's would.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestPlatform } from "../support/platforms.ts";
import {
  createCapturingLogger,
  createSandboxClient,
  createSandboxPlatform,
  type SandboxClient,
} from "./sandbox-client.ts";

const iterations = 200;

// Inside the sandbox, without a process per step: `d` is the real directory half the time, and
// otherwise, in turn, gone, a symlink out of the sandbox, a symlink to itself (a loop) and a
// symlink back inside; `d/sub` likewise. Stops when the file operations are done (a marker file).
const swapLoop = [
  "my $swaps = 0;",
  "my $pause = sub { select(undef, undef, undef, 0.0002) };",
  "until (-e q(stop)) {",
  "  for my $name (q(d/sub), q(d)) {",
  "    rename $name, qq($name.real) or next;",
  "    for my $target (q(/etc), $name =~ s{.*/}{}r, q(/workspace)) { symlink $target, $name; $pause->(); unlink $name }",
  // A write made `d` anew while it was gone: moved aside, so the real one can come back.
  "    rename $name, qq($name.made.$swaps) if -d $name && !-l $name;",
  "    rename qq($name.real), $name; $swaps++; $pause->();",
  "  }",
  "}",
  "print $swaps;",
].join(" ");

/** One request per file operation, each through the directory `d` that the exec keeps swapping. */
const fileOperations: Array<[string, Record<string, unknown>]> = [
  ["files", { path: "d/sub/new.txt", content: "written" }],
  ["files/view", { path: "d/sub/file.txt" }],
  ["files/str-replace", { path: "d/sub/file.txt", old_str: "inside", new_str: "inside", replace_all: true }],
  ["files/ls", { path: "d/sub" }],
  ["files/glob", { pattern: "**/*", path: "d" }],
  ["files/grep", { pattern: "inside", path: "d" }],
];

describe("a directory swapped for a symlink during file operations", () => {
  let test: TestPlatform;
  let client: SandboxClient;
  let sessionId: string;
  const logs = createCapturingLogger();

  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite", { logger: logs.logger });
    client = await createSandboxClient(test);
    sessionId = (await client.createActive()).id;
    const setup = await client.exec(sessionId, "mkdir -p d/sub && echo inside > d/sub/file.txt");
    expect(setup.body.exit_code).toBe(0);
  });
  afterAll(() => test.close());

  it(`never answers 5xx across ${iterations} rounds of all six operations`, async () => {
    // Swaps `d` for a symlink out of the sandbox, a symlink loop and a symlink back inside, and
    // restores it, until the file operations are done (a marker file) or 90 s pass.
    const swapping = client.exec(sessionId, `perl -e '${swapLoop}'`, 100);
    const statuses = new Map<string, number>();
    const failures: string[] = [];
    for (let round = 0; round < iterations; round++) {
      for (const [suffix, json] of fileOperations) {
        const response = await client.send(`/v1/sandboxes/${sessionId}/${suffix}`, { method: "POST", json });
        const text = await response.text();
        const key = `${suffix} ${response.status}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        if (response.status >= 500) failures.push(`${key} ${text}`);
      }
    }
    await client.send(`/v1/sandboxes/${sessionId}/files`, {
      method: "POST",
      json: { path: "stop", content: "" },
    });
    const swapped = await swapping;
    expect(failures).toEqual([]);
    expect(logs.text()).not.toContain("sandbox runtime failure");
    expect(swapped.status).toBe(200);
    // The race really ran: the exec swapped many times while the operations went on.
    expect(Number(swapped.body.stdout.trim())).toBeGreaterThan(iterations);
    // And both sides of the race were seen: some operations went through, some were refused.
    const answered = [...statuses.keys()];
    expect(answered.some((key) => / 2\d\d$/.test(key))).toBe(true);
    expect(answered.some((key) => / 4\d\d$/.test(key))).toBe(true);
  }, 120_000);
});
