/**
 * The file API cannot leave a sandbox and no account reaches another's sandbox: `..`, absolute
 * paths outside the roots and symlinks made by exec are 403 path_outside_sandbox on every file
 * operation; a foreign or destroyed session is 404 on every per-session route. Over REST on real
 * bubblewrap sandboxes (the runtime's own escape suite covers its primitives directly).
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultMountDirectory } from "../../plugins/sandbox-local/session-disk.ts";
import type { TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  expectNotFoundEverywhere,
  type SandboxClient,
} from "./sandbox-client.ts";

let test: TestPlatform;
let owner: SandboxClient;
let sessionId: string;
// A host directory outside every sandbox, holding a file nothing may read or change.
let hostDirectory: string;
const probe = `cairn-probe-${crypto.randomUUID()}`;

beforeAll(async () => {
  test = await createSandboxPlatform("sqlite");
  owner = await createSandboxClient(test);
  sessionId = (await owner.createActive()).id;
  hostDirectory = await mkdtemp("/var/tmp/cairn-host-");
  await writeFile(join(hostDirectory, "target.txt"), "host secret\n");
  await owner.exec(sessionId, "mkdir -p sub && echo inside > sub/file.txt");
});
afterAll(async () => {
  await test.close();
  await rm(hostDirectory, { recursive: true, force: true });
});

/** One request per file operation that names `path` (read, write, edit, list, glob root, grep root). */
function fileOperations(path: string): Array<[string, Record<string, unknown>]> {
  return [
    ["files", { path: path.endsWith("/") ? `${path}${probe}` : path, content: "pwned" }],
    ["files/view", { path }],
    ["files/str-replace", { path, old_str: "secret", new_str: "pwned" }],
    ["files/ls", { path }],
    ["files/glob", { pattern: "**/*", path }],
    ["files/grep", { pattern: "secret|root", path }],
  ];
}

async function expectOutside(path: string, operations = fileOperations(path)) {
  for (const [suffix, json] of operations) {
    const response = await owner.sendJson(`/v1/sandboxes/${sessionId}/${suffix}`, { method: "POST", json });
    expect([suffix, path, response.status, errorCode(response.body)]).toEqual([
      suffix,
      path,
      403,
      "path_outside_sandbox",
    ]);
  }
}

describe("file paths", () => {
  it("refuses `..` that leaves the roots in every file operation", async () => {
    for (const path of ["..", "../", "../etc/passwd", "/workspace/../etc/passwd", "sub/../../etc/passwd"]) {
      await expectOutside(path);
    }
    await expectOutside("/tmp/../etc/", [["files", { path: `/tmp/../etc/${probe}`, content: "x" }]]);
    expect(existsSync(join(defaultMountDirectory(test.dataDir), sessionId, probe))).toBe(false);
    expect(existsSync(join("/etc", probe))).toBe(false);
    // `..` that stays inside is fine.
    const inside = await owner.sendJson<{ content: string }>(`/v1/sandboxes/${sessionId}/files/view`, {
      method: "POST",
      json: { path: "sub/../sub/file.txt" },
    });
    expect(inside.body.content).toBe("inside\n");
  });

  it("refuses absolute paths outside the roots", async () => {
    for (const path of ["/etc/passwd", "/etc/", "/usr/bin", "/proc/self/environ", "/root", hostDirectory]) {
      await expectOutside(path);
    }
    expect(existsSync(join(hostDirectory, probe))).toBe(false);
  });

  it("refuses symlinks made by exec that point out, for reading and writing", async () => {
    const made = await owner.exec(
      sessionId,
      `ln -s /etc /workspace/e && ln -s ${hostDirectory}/target.txt /workspace/host-file && ` +
        `ln -s ${hostDirectory} /workspace/host-dir && ln -s ../../../../../etc/passwd /workspace/relative`,
    );
    expect(made.body.exit_code).toBe(0);
    for (const path of ["e", "e/", "e/passwd", "host-file", "host-dir", "host-dir/", "relative"]) {
      await expectOutside(path);
    }
    expect(await readFile(join(hostDirectory, "target.txt"), "utf8")).toBe("host secret\n");
    expect(existsSync(join(hostDirectory, probe))).toBe(false);
    expect(existsSync(join("/etc", probe))).toBe(false);

    // A recursive listing below /workspace shows the links but does not follow them out.
    const glob = await owner.sendJson<{ matches: Array<{ path: string }> }>(
      `/v1/sandboxes/${sessionId}/files/glob`,
      { method: "POST", json: { pattern: "**/passwd" } },
    );
    expect(glob.status).toBe(200);
    expect(glob.body.matches).toEqual([]);
    const grep = await owner.sendJson<{ matches: Array<{ path: string }> }>(
      `/v1/sandboxes/${sessionId}/files/grep`,
      { method: "POST", json: { pattern: "host secret|root:" } },
    );
    expect(grep.status).toBe(200);
    expect(grep.body.matches).toEqual([]);
  });

  it("matches glob patterns only below the root, whatever the pattern says", async () => {
    const glob = await owner.sendJson<{ matches: unknown[] }>(`/v1/sandboxes/${sessionId}/files/glob`, {
      method: "POST",
      json: { pattern: "../**/*" },
    });
    expect(glob.status === 200 ? glob.body.matches : errorCode(glob.body)).toSatisfy(
      (result) => (Array.isArray(result) && result.length === 0) || result === "path_outside_sandbox",
    );
  });
});

// Regression: a symlink to a directory under the searched tree made grep read the directory and
// fail the whole search with 422 "Is a directory". As ripgrep does by default, links met while
// walking are neither followed nor searched; only a link named as the root is followed, and only
// when it stays inside the sandbox.
describe("symbolic links met while walking", () => {
  let client: SandboxClient;
  let linkedSession: string;
  const expectedMatches = [
    { path: "/workspace/src/a.txt", line: 1, text: "needle" },
    { path: "/workspace/src/deep/b.txt", line: 1, text: "needle deep" },
  ];

  beforeAll(async () => {
    client = await createSandboxClient(test);
    linkedSession = (await client.createActive()).id;
    const made = await client.exec(
      linkedSession,
      "mkdir -p src/deep && echo needle > src/a.txt && echo 'needle deep' > src/deep/b.txt && " +
        "ln -s src link && ln -s /etc etc-link && ln -s /etc/passwd passwd.txt && " +
        "ln -s src/a.txt file-link.txt && ln -s missing dangling.txt && ln -s .. src/up && mkfifo pipe.txt",
    );
    expect(made.body.exit_code).toBe(0);
  });

  const grep = (json: Record<string, unknown>) =>
    client.sendJson<{ matches: unknown[]; error: string | null; truncated: boolean }>(
      `/v1/sandboxes/${linkedSession}/files/grep`,
      { method: "POST", json },
    );

  it("greps a tree holding links to directories inside and out, files and nowhere, without following them", async () => {
    for (const json of [
      { pattern: "needle|root:" },
      { pattern: "needle|root:", path: "/workspace" },
      { pattern: "needle|root:", path: "/workspace", glob: "**/*.txt" },
      { pattern: "needle|root:", glob: "*.txt" },
    ]) {
      const response = await grep(json);
      expect([json, response.status, response.body]).toEqual([
        json,
        200,
        { matches: expectedMatches, error: null, truncated: false },
      ]);
    }
  });

  it("follows a link named as the grep root when it stays inside, and refuses one that leads out", async () => {
    const throughLink = await grep({ pattern: "needle", path: "link" });
    expect([throughLink.status, throughLink.body.matches]).toEqual([200, expectedMatches]);
    const filtered = await grep({ pattern: "needle", path: "/workspace/link", glob: "deep/*.txt" });
    expect([filtered.status, filtered.body.matches]).toEqual([200, [expectedMatches[1]]]);
    for (const path of ["etc-link", "passwd.txt"]) {
      const outside = await grep({ pattern: "root:", path });
      expect([path, outside.status, errorCode(outside.body)]).toEqual([path, 403, "path_outside_sandbox"]);
    }
  });

  it("leaves links out of glob, and ls shows them as links (is_dir false, the link's own size)", async () => {
    const glob = await client.sendJson<{ matches: Array<{ path: string; is_dir: boolean }> }>(
      `/v1/sandboxes/${linkedSession}/files/glob`,
      { method: "POST", json: { pattern: "**/*" } },
    );
    expect(glob.status).toBe(200);
    expect(glob.body.matches.map((match) => [match.path, match.is_dir])).toEqual([
      ["/workspace/pipe.txt", false],
      ["/workspace/src/a.txt", false],
      ["/workspace/src/deep/b.txt", false],
    ]);
    const throughLink = await client.sendJson<{ matches: Array<{ path: string }> }>(
      `/v1/sandboxes/${linkedSession}/files/glob`,
      { method: "POST", json: { pattern: "deep/*", path: "link" } },
    );
    expect([throughLink.status, throughLink.body.matches.map((match) => match.path)]).toEqual([
      200,
      ["/workspace/src/deep/b.txt"],
    ]);
    const list = await client.sendJson<{ entries: Array<{ path: string; is_dir: boolean; size: number }> }>(
      `/v1/sandboxes/${linkedSession}/files/ls`,
      { method: "POST", json: { path: "/workspace" } },
    );
    expect(list.status).toBe(200);
    expect(list.body.entries.map((entry) => [entry.path, entry.is_dir, entry.size])).toEqual([
      ["/workspace/dangling.txt", false, "missing".length],
      ["/workspace/etc-link", false, "/etc".length],
      ["/workspace/file-link.txt", false, "src/a.txt".length],
      ["/workspace/link", false, "src".length],
      ["/workspace/passwd.txt", false, "/etc/passwd".length],
      ["/workspace/pipe.txt", false, 0],
      ["/workspace/src/", true, expect.any(Number)],
    ]);
  });
});

describe("tenancy", () => {
  it("answers 404 on every per-session route for another account's session", async () => {
    const stranger = await createSandboxClient(test);
    const ownSession = (await stranger.createActive()).id;
    const get = await stranger.get(sessionId);
    expect([get.status, errorCode(get.body)]).toEqual([404, "not_found"]);
    await expectNotFoundEverywhere(stranger, sessionId);
    expect((await stranger.list()).body.map((session) => session.id)).toEqual([ownSession]);
    // The owner's sandbox is untouched by all of that.
    expect((await owner.get(sessionId)).body.status).toBe("active");
    const view = await owner.sendJson<{ content: string }>(`/v1/sandboxes/${sessionId}/files/view`, {
      method: "POST",
      json: { path: "sub/file.txt" },
    });
    expect(view.body.content).toBe("inside\n");
    expect((await owner.exec(sessionId, "ls a.txt 2>&1 || true")).body.stdout).toContain("No such file");
    // And the other way round.
    await expectNotFoundEverywhere(owner, ownSession);
  });

  it("answers 404 on every per-session route for a destroyed session, and for unknown ids", async () => {
    const session = await owner.createActive();
    expect((await owner.destroy(session.id)).status).toBe(204);
    await expectNotFoundEverywhere(owner, session.id);
    expect((await owner.get(session.id)).body.status).toBe("destroyed");
    await expectNotFoundEverywhere(owner, crypto.randomUUID());
    await expectNotFoundEverywhere(owner, "not-a-session");
  });
});
