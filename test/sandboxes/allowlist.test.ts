/**
 * The command allowlist over REST (docs/api.md#command-allowlist): PUT validation codes, storage as given on
 * both databases, and exec enforcement on a real sandbox — wrappers, absolute paths, command
 * substitution and chains cannot smuggle a program past the rules, and nothing refused runs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allOperations } from "../../core/index.ts";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  type SandboxClient,
} from "./sandbox-client.ts";

const path = "/v1/account/allowed-commands";
const put = (client: SandboxClient, rules: unknown) =>
  client.sendJson(path, { method: "PUT", json: { rules } });

describe.each(storageTargets)("allowlist rules on %s", (target) => {
  let test: TestPlatform;
  let client: SandboxClient;
  beforeAll(async () => {
    test = await createSandboxPlatform(target);
    client = await createSandboxClient(test);
  });
  afterAll(() => test.close());

  it("validates PUT with the documented codes and keeps the previous rules on a refusal", async () => {
    expect((await put(client, ["ls"])).status).toBe(200);
    const cases: Array<[unknown, number, string]> = [
      [Array.from({ length: 51 }, (_, index) => `tool${index}`), 400, "too_many_rules"],
      [[{ command: "grep", args_allow: ["a".repeat(201)], args_deny: [] }], 400, "pattern_too_long"],
      [[{ command: "grep", args_allow: [], args_deny: ["(unclosed"] }], 400, "invalid_pattern"],
      [[{ command: "grep", args_allow: ["(?<=x)y"], args_deny: [] }], 400, "invalid_pattern"],
      [[42], 400, "invalid_rules"],
      [[{ args_allow: [] }], 400, "invalid_rules"],
      [["/usr/bin/ls"], 400, "invalid_rules"],
      [["ls; rm"], 400, "invalid_rules"],
      [[""], 400, "invalid_rules"],
      [[], 422, "validation_error"],
      ["ls", 422, "validation_error"],
    ];
    for (const [rules, status, code] of cases) {
      const response = await put(client, rules);
      expect([JSON.stringify(rules).slice(0, 60), response.status, errorCode(response.body)]).toEqual([
        JSON.stringify(rules).slice(0, 60),
        status,
        code,
      ]);
    }
    expect(
      (
        await put(
          client,
          Array.from({ length: 50 }, (_, index) => `tool${index}`),
        )
      ).status,
    ).toBe(200);
    const missing = await client.sendJson(path, { method: "PUT", json: {} });
    expect([missing.status, errorCode(missing.body)]).toEqual([422, "validation_error"]);
    expect(((await client.sendJson<{ rules: string[] }>(path)).body.rules as string[]).length).toBe(50);
  });

  it("stores the valid entries of a list that has invalid ones, and answers what it kept", async () => {
    const response = await put(client, ["", "ls", { command: "git", args_deny: "push" }, 42]);
    expect([response.status, response.body]).toEqual([200, { rules: ["ls"] }]);
    expect((await client.sendJson<{ rules: string[] }>(path)).body).toEqual({ rules: ["ls"] });
  });

  it("returns the rules as stored, and DELETE clears them", async () => {
    const rules = [
      " ls ",
      { command: "grep", args_allow: ["^-n "] },
      { command: "git", args_deny: ["push"] },
    ];
    const stored = [
      "ls",
      { command: "grep", args_allow: ["^-n "], args_deny: [] },
      { command: "git", args_allow: [], args_deny: ["push"] },
    ];
    const response = await put(client, rules);
    expect(response).toMatchObject({ status: 200, body: { rules: stored } });
    expect((await client.sendJson(path)).body).toEqual({ rules: stored });
    const other = await createSandboxClient(test);
    expect((await other.sendJson(path)).body).toEqual({ rules: [] });
    expect((await client.send(path, { method: "DELETE" })).status).toBe(204);
    expect((await client.sendJson(path)).body).toEqual({ rules: [] });
    expect((await client.send(path, { method: "DELETE" })).status).toBe(204);
  });
});

describe("exec under an allowlist", () => {
  let test: TestPlatform;
  let client: SandboxClient;
  let sessionId: string;
  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite");
    client = await createSandboxClient(test);
    sessionId = (await client.createActive()).id;
    const rules = ["ls", "cat", "wc", { command: "grep", args_allow: ["^-n "], args_deny: ["shadow"] }];
    expect((await put(client, rules)).status).toBe(200);
  });
  afterAll(() => test.close());

  it("refuses every way of starting a program that is not allowed, and runs none of them", async () => {
    const attempts = [
      "touch pwned",
      "sh -c 'touch pwned'",
      "bash -c 'touch pwned'",
      "env touch pwned",
      "env -i /usr/bin/touch pwned",
      "/usr/bin/touch pwned",
      "./touch pwned",
      "echo pwned | xargs touch",
      "find . -maxdepth 0 -exec touch pwned ';'",
      "ls $(touch pwned)",
      "ls `touch pwned`",
      'cat "$(touch pwned)"',
      "ls; touch pwned",
      "ls && touch pwned",
      "ls || touch pwned",
      "ls | touch pwned",
      "ls & touch pwned",
      "ls\ntouch pwned",
      "command touch pwned",
      "exec touch pwned",
      "nice touch pwned",
      "timeout 5 touch pwned",
      "eval 'touch pwned'",
      "PATH=/tmp ls",
      "cat pwned | sh",
      "ls > >(touch pwned)",
      "grep -r pwned .",
      "grep -n root /etc/shadow",
      'python3 -c \'open("pwned", "w")\'',
    ];
    for (const command of attempts) {
      const response = await client.exec(sessionId, command);
      expect([command, response.status, errorCode(response.body)]).toEqual([
        command,
        403,
        "command_not_allowed",
      ]);
      expect(
        (response.body as unknown as { error: { message: string } }).error.message.length,
      ).toBeGreaterThan(0);
    }
    const listing = await client.sendJson<{ entries: Array<{ path: string }> }>(
      `/v1/sandboxes/${sessionId}/files/ls`,
      { method: "POST", json: { path: "/" } },
    );
    expect(listing.body.entries).toEqual([]);
  });

  it("runs the allowed programs, builtins, pipes and chains of them", async () => {
    const allowed: Array<[string, string]> = [
      ["ls -a /workspace", ".\n..\n"],
      ["cat /etc/hostname", "sandbox\n"],
      ["echo one two | wc -w", "2\n"],
      ["echo start && ls /workspace; echo end", "start\nend\n"],
      ["grep -n root /etc/passwd | cat", "1:root:x:0:0:root:/workspace:/bin/sh\n"],
    ];
    for (const [command, stdout] of allowed) {
      const response = await client.exec(sessionId, command);
      expect([command, response.status, response.body.stdout]).toEqual([command, 200, stdout]);
    }
  });

  it("lifts every restriction on DELETE", async () => {
    expect((await client.send(path, { method: "DELETE" })).status).toBe(204);
    const response = await client.exec(sessionId, "touch made && ls");
    expect(response.body).toMatchObject({ exit_code: 0, stdout: "made\n" });
  });
});

describe("exec under an allowlist: options of allowed programs that start other programs", () => {
  let test: TestPlatform;
  let client: SandboxClient;
  let sessionId: string;
  const bypass = "yes 'touch pwned' | head -n 20000 | sort -S 16K -T /tmp --compress-program=sh";
  const workspaceNames = async (): Promise<string[]> => {
    const listing = await client.sendJson<{ entries: Array<{ path: string }> }>(
      `/v1/sandboxes/${sessionId}/files/ls`,
      { method: "POST", json: { path: "/" } },
    );
    return listing.body.entries.map((entry) => entry.path.split("/").at(-1) ?? "");
  };
  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite");
    client = await createSandboxClient(test);
    sessionId = (await client.createActive()).id;
    const rules = ["sort", "yes", "head", "sed", "awk", "tar", "git", "cat"];
    expect((await put(client, rules)).status).toBe(200);
  });
  afterAll(() => test.close());

  it("refuses sort --compress-program and its relatives, and runs none of them", async () => {
    const attempts = [
      bypass,
      "yes 'touch pwned' | head -n 20000 | sort -S 16K -T /tmp --compress-prog sh",
      "yes 'touch pwned' | head -n 20000 | sort -S 16K -T /tmp --co=sh",
      "echo x | sed 's/x/touch pwned/e'",
      "echo 'touch pwned' | sed e",
      `awk 'BEGIN { system("touch pwned") }'`,
      `awk 'BEGIN { print "touch pwned" | "sh" }'`,
      "tar -cf /tmp/a.tar --checkpoint=1 --checkpoint-action=exec='touch pwned' /etc/hostname",
      "tar -cf /tmp/a.tar -I 'sh -c \"touch pwned\"' /etc/hostname",
      "git -c alias.x='!touch pwned' x",
      "git -c core.pager='touch pwned' -p log",
      "echo --compress-program=sh | xargs sort",
    ];
    for (const command of attempts) {
      const response = await client.exec(sessionId, command);
      expect([command, response.status, errorCode(response.body)]).toEqual([
        command,
        403,
        "command_not_allowed",
      ]);
    }
    expect(await workspaceNames()).not.toContain("pwned");
  });

  it("runs the ordinary uses of the same programs", async () => {
    const allowed: Array<[string, string]> = [
      ["printf '3\\n1\\n2\\n' | sort -n", "1\n2\n3\n"],
      ["printf '1\\n2\\n3\\n' | sed -n 1,2p", "1\n2\n"],
      ["printf 'a b\\nc d\\n' | awk '{print $1}'", "a\nc\n"],
      ["tar -czf /tmp/a.tgz -C /etc hostname && tar -tzf /tmp/a.tgz", "hostname\n"],
      ["git --version | sed 's/ [0-9].*//'", "git version\n"],
    ];
    for (const [command, stdout] of allowed) {
      const response = await client.exec(sessionId, command);
      expect([command, response.status, response.body.stdout]).toEqual([command, 200, stdout]);
    }
  });

  // Without this, the refusals above could pass even if the bypass did nothing.
  it("the same command does start sh once the allowlist is lifted", async () => {
    expect((await client.send(path, { method: "DELETE" })).status).toBe(204);
    // The same shape, with a payload that exits after its first line so the test stays quick.
    const response = await client.exec(sessionId, bypass.replace("'touch pwned'", "'touch pwned; exit'"));
    expect(response.status).toBe(200);
    expect(await workspaceNames()).toContain("pwned");
  });
});

// Issue 7: each of these ran a program the allowlist did not allow. /bin/sh is dash, and dash reads
// `&>` as `&` then `>`, and runs the body of `for i do …` over the positional parameters.
describe("exec under an allowlist: dash's grammar and the programs of finding 8", () => {
  let test: TestPlatform;
  let client: SandboxClient;
  let sessionId: string;
  const workspaceNames = async (): Promise<string[]> => {
    const listing = await client.sendJson<{ entries: Array<{ path: string }> }>(
      `/v1/sandboxes/${sessionId}/files/ls`,
      { method: "POST", json: { path: "/" } },
    );
    return listing.body.entries.map((entry) => entry.path.split("/").at(-1) ?? "");
  };
  const grammarBypasses = ["true &>/dev/null touch pwned >&2", "set -- 1; for i do touch pwned; done"];
  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite");
    client = await createSandboxClient(test);
    sessionId = (await client.createActive()).id;
    const rules = ["ls", "cat", "install", "sdiff", "diff3", "groff", "openssl"];
    expect((await put(client, rules)).status).toBe(200);
  });
  afterAll(() => test.close());

  it("refuses the bypasses of the grammar and the program-starting options, and runs none of them", async () => {
    const attempts = [
      ...grammarBypasses,
      "ls &>/dev/null touch pwned",
      "set -- 1; for i; do touch pwned; done",
      "if ls; then ls; else touch pwned; fi",
      "case a in a) touch pwned;; esac",
      "{ ls; touch pwned; }",
      "(touch pwned)",
      "ls() { touch pwned; }; ls",
      "cat <<E\n$(touch pwned)\nE",
      "install --strip-program=/usr/bin/touch -s /etc/hostname /tmp/h",
      "sdiff --diff-program=/usr/bin/touch /etc/hostname /etc/hostname",
      "diff3 --diff-program=/usr/bin/touch /etc/hostname /etc/hostname /etc/hostname",
      "groff -U /dev/null",
      "OPENSSL_CONF=/workspace/x.cnf openssl version",
    ];
    for (const command of attempts) {
      const response = await client.exec(sessionId, command);
      expect([command, response.status, errorCode(response.body)]).toEqual([
        command,
        403,
        "command_not_allowed",
      ]);
    }
    expect(await workspaceNames()).not.toContain("pwned");
  });

  it("runs compound commands and here-documents whose every command is allowed", async () => {
    const allowed: Array<[string, string]> = [
      ["for f in /etc/hostname; do cat $f; done", "sandbox\n"],
      ["if ls /nonexistent 2>/dev/null; then ls; else cat /etc/hostname; fi", "sandbox\n"],
      ["cat <<'E'\n$(touch pwned)\nE", "$(touch pwned)\n"],
      ["{ cat /etc/hostname; } | cat", "sandbox\n"],
    ];
    for (const [command, stdout] of allowed) {
      const response = await client.exec(sessionId, command);
      expect([command, response.status, response.body.stdout]).toEqual([command, 200, stdout]);
    }
    expect(await workspaceNames()).not.toContain("pwned");
  });

  // Without this, the refusals above could pass even if the bypasses did nothing in dash.
  it("the grammar bypasses do start their program once the allowlist is lifted", async () => {
    expect((await client.send(path, { method: "DELETE" })).status).toBe(204);
    for (const command of grammarBypasses) {
      expect((await client.exec(sessionId, `rm -f pwned; ${command}`)).status).toBe(200);
      expect([command, await workspaceNames()]).toEqual([command, ["pwned"]]);
    }
  });
});

describe("the allowlist routes", () => {
  it("are not MCP tools: an agent cannot widen its own allowlist", () => {
    const routes = allOperations.filter((tool) => tool.http?.path === path);
    expect(routes.map((tool) => tool.http?.method).sort()).toEqual(["DELETE", "GET", "PUT"]);
    for (const tool of routes) expect([tool.name, tool.mcp]).toEqual([tool.name, undefined]);
  });
});
