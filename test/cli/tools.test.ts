/**
 * `cairn tools …` against a live server that loads the two example plugins (examples/plugins):
 * the list, calls by name with the input as JSON, a file and stdin, each tool's help drawn from
 * its schema (and its example line run as printed), the exit codes of an unknown tool, a bad
 * input and the tool's own refusals, and the plugins' tools reached the same way, with no
 * command of their own: the todo list, and the session journal after a sandbox session ends;
 * `cairn mcp serve --tools <plugin>`; also against the same plugins served by Deno.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, type LiveServer, startLiveServer } from "../mcp/mcp-harness.ts";
import { withExamplePlugins } from "../support/example-plugins.ts";
import { type RunningServer, serverRuntimes, signUpWithKey, startServer } from "../support/processes.ts";
import {
  type CliHome,
  createHome,
  expectFailure,
  runCairn,
  runJson,
  runOk,
  signUpThroughCli,
} from "./cli-harness.ts";

let server: LiveServer;
let cli: CliHome;
let env: Record<string, string>;

interface ToolOut {
  name: string;
  plugin: string | null;
  title: string;
  input_schema: { properties: Record<string, unknown>; required?: string[] };
}

beforeAll(async () => {
  server = await startLiveServer({ SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000", ...withExamplePlugins });
  cli = await createHome();
  env = cli.environment();
  await signUpThroughCli(cli, server.baseUrl);
});
afterAll(async () => {
  await server.close();
  await cli.remove();
});

/** Splits a shell line the way the help prints it: words, and one single-quoted argument. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map(
    (match) => match[1]?.replaceAll("'\\''", "'") ?? match[2],
  );
}

describe("cairn tools", () => {
  it("lists every tool with its plugin and title, as a table and as JSON", async () => {
    const table = await runOk(["tools", "ls"], { env });
    expect(table.stdout).toMatch(/^NAME\s+PLUGIN\s+TITLE$/m);
    expect(table.stdout).toMatch(/^recall\s+-\s+\S/m);
    const listing = await runJson<{ tools: ToolOut[] }>(["tools", "ls"], { env });
    const recall = listing.tools.find((tool) => tool.name === "recall");
    expect(recall?.input_schema.properties).toHaveProperty("q");
    expect(listing.tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(["remember", "create_sandbox", "exec"]),
    );
    const none = await runOk(["tools", "ls", "--plugin", "no-such-plugin"], { env });
    expect(none.stdout).toContain(
      "No tools from plugin no-such-plugin (plugins with tools: session-journal, todo).",
    );
    expect(await runJson(["tools", "ls", "--plugin", "no-such-plugin"], { env })).toEqual({ tools: [] });
  });

  it("calls a tool with the input as JSON, from a file and from stdin", async () => {
    const stored = await runJson<{ id: string; content: string }>(
      ["tools", "call", "remember", "--input", '{"content": "The CLI calls tools by name"}'],
      { env },
    );
    expect(stored.content).toBe("The CLI calls tools by name");
    const inputFile = join(cli.home, "recall.json");
    await writeFile(inputFile, JSON.stringify({ q: "tools by name", limit: 3 }));
    const fromFile = await runOk(["tools", "call", "recall", "--input", `@${inputFile}`], { env });
    expect(JSON.parse(fromFile.stdout).memories[0].id).toBe(stored.id);
    const fromStdin = await runJson<{ memories: Array<{ id: string }> }>(
      ["tools", "call", "recall", "--input", "-"],
      { env, input: '{"q": "calls tools"}' },
    );
    expect(fromStdin.memories.map((memory) => memory.id)).toEqual([stored.id]);
    // A route that answers nothing answers {} by name.
    expect(
      await runJson(["tools", "call", "forget_memory", "--input", JSON.stringify({ memory_id: stored.id })], {
        env,
      }),
    ).toEqual({});
  });

  it("prints a tool's help from its schema, with an example that runs as printed", async () => {
    const help = await runOk(["tools", "call", "recall", "--help"], { env });
    expect(help.stdout).toMatch(/^Usage: cairn tools call recall --input JSON\|@file\|-/);
    expect(help.stdout).toContain("(built in; read-only");
    expect(help.stdout).toMatch(/^ {2}q\s+string, required\s+\S/m);
    expect(help.stdout).toMatch(/^ {2}limit\s+integer, optional, default 10\b/m);
    const example = help.stdout.match(/^ {2}\$ cairn (tools call recall .*)$/m)?.[1];
    expect(example).toBeDefined();
    const ran = await runOk(shellWords(example ?? ""), { env });
    expect(JSON.parse(ran.stdout)).toHaveProperty("memories");

    const generic = await runOk(["tools", "call", "--help"], { env });
    expect(generic.stdout).toContain("Examples:");
  });

  it("names close tools for an unknown name (exit 4), also for --help", async () => {
    const unknown = await runCairn(["tools", "call", "recal", "--input", "{}"], { env });
    expectFailure(unknown, 4, "not_found");
    expect(unknown.stderr).toContain('no tool named "recal"; did you mean recall');
    const help = await runCairn(["tools", "call", "remmber", "--help"], { env });
    expectFailure(help, 4, "not_found");
    expect(help.stderr).toContain("did you mean remember");
  });

  it("refuses an input that is not a JSON object before any request (exit 2)", async () => {
    // No saved key: a request would fail with exit 3, so exit 2 shows none was made.
    const empty = await createHome();
    const bare = empty.environment();
    const invalid = await runCairn(["tools", "call", "recall", "--input", "{q: 1}"], { env: bare });
    expectFailure(invalid, 2, "invalid_json");
    expect(invalid.stderr).toContain("--input is not valid JSON");
    const missing = await runCairn(["tools", "call", "recall", "--input", "@/no/such/file.json"], {
      env: bare,
    });
    expectFailure(missing, 2, "missing_input");
    expect(missing.stderr).toContain("cannot read /no/such/file.json");
    expectFailure(
      await runCairn(["tools", "call", "recall", "--input", "[1, 2]"], { env: bare }),
      2,
      "validation_error",
    );
    await empty.remove();
  });

  it("waits out a long exec's own timeout, past the client's usual 30 s", async () => {
    const sandbox = await runJson<{ id: string }>(["tools", "call", "create_sandbox", "--input", "{}"], {
      env,
    });
    const input = { session_id: sandbox.id, command: "sleep 33; echo done", timeout: 60 };
    const output = await runJson<{ exit_code: number; stdout: string }>(
      ["tools", "call", "exec", "--input", JSON.stringify(input)],
      { env },
    );
    expect(output).toMatchObject({ exit_code: 0, stdout: "done\n" });
    expect(
      await runJson(
        ["tools", "call", "destroy_sandbox", "--input", JSON.stringify({ session_id: sandbox.id })],
        {
          env,
        },
      ),
    ).toEqual({});
  }, 120_000);

  it("exits with the class of the tool's own refusal", async () => {
    expectFailure(
      await runCairn(["tools", "call", "recall", "--input", '{"q": ""}'], { env }),
      2,
      "validation_error",
    );
    expectFailure(
      await runCairn(
        ["tools", "call", "get_memory", "--input", JSON.stringify({ memory_id: crypto.randomUUID() })],
        { env },
      ),
      4,
      "memory_not_found",
    );
  });
});

interface Task {
  id: string;
  text: string;
  done: boolean;
}

describe("cairn tools with the example plugins", () => {
  it("lists a plugin's tools under its name", async () => {
    const table = await runOk(["tools", "ls", "--plugin", "todo"], { env });
    expect(table.stdout).toMatch(/^todo\.add\s+todo\s+Add a task$/m);
    expect(table.stdout).toMatch(/^todo\.done\s+todo\s+/m);
    expect(table.stdout).not.toContain("recall");
    const listing = await runJson<{ tools: ToolOut[] }>(["tools", "ls", "--plugin", "session-journal"], {
      env,
    });
    expect(listing.tools.map((tool) => [tool.name, tool.plugin])).toEqual([
      ["session-journal.recent", "session-journal"],
    ]);
  });

  it("adds, lists and finishes a task through todo's tools", async () => {
    const added = await runJson<Task>(
      ["tools", "call", "todo.add", "--input", '{"text": "Write the release notes"}'],
      { env },
    );
    expect(added).toMatchObject({ text: "Write the release notes", done: false });
    const open = await runJson<{ tasks: Task[] }>(["tools", "call", "todo.list"], { env });
    expect(open.tasks.map((task) => task.id)).toContain(added.id);
    const finished = await runJson<Task>(
      ["tools", "call", "todo.done", "--input", JSON.stringify({ id: added.id })],
      { env },
    );
    expect(finished).toMatchObject({ id: added.id, done: true });
    const still = await runJson<{ tasks: Task[] }>(["tools", "call", "todo.list", "--input", "{}"], { env });
    expect(still.tasks.map((task) => task.id)).not.toContain(added.id);
    // The tool's own 404 keeps its exit code and message: the tool exists, the task does not.
    const missing = await runCairn(["tools", "call", "todo.done", "--input", '{"id": "t-none"}'], { env });
    expectFailure(missing, 4, "not_found");
    expect(missing.stderr).toContain("No such task");
    expectFailure(
      await runCairn(["tools", "call", "todo.add", "--input", '{"text": ""}'], { env }),
      2,
      "validation_error",
    );
  });

  it("prints a plugin tool's help from its schema, and names it for a near miss", async () => {
    const help = await runOk(["tools", "call", "todo.add", "--help"], { env });
    expect(help.stdout).toContain("Add a task (from plugin todo)");
    expect(help.stdout).toMatch(/^ {2}text\s+string, required\s+What to do, in one line$/m);
    const example = help.stdout.match(/^ {2}\$ cairn (tools call todo\.add .*)$/m)?.[1];
    const ran = await runOk(shellWords(example ?? ""), { env });
    expect(JSON.parse(ran.stdout)).toMatchObject({ done: false });
    const near = await runCairn(["tools", "call", "todo.ad", "--input", "{}"], { env });
    expectFailure(near, 4, "not_found");
    expect(near.stderr).toContain("did you mean todo.add");
  });

  it("serves one plugin's tools alone over stdio: cairn mcp serve --tools todo", async () => {
    const { key } = await signUpWithKey(server.baseUrl);
    const mcp = await connectStdio(server.baseUrl, key, "todo");
    try {
      const names = (await mcp.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(["todo__add", "todo__list", "todo__done"]);
      const added = await mcp.callTool({ name: "todo__add", arguments: { text: "Through stdio" } });
      expect(added.structuredContent).toMatchObject({ text: "Through stdio", done: false });
    } finally {
      await mcp.close();
    }
  });

  it("shows the session journal's record of a session that ended", async () => {
    const session = await runJson<{ id: string }>(["session", "create", "--label", "journal"], { env });
    await runOk(["exec", "--session", session.id, "--", "echo journal > notes.txt"], { env });
    await runOk(["session", "rm", session.id], { env });
    // The journal hears of the end from the event queue, after the destroy answered: wait for it.
    let sessions: Array<{ sandbox_id: string; commands: number; files: string[] }> = [];
    for (let attempt = 0; attempt < 100; attempt++) {
      ({ sessions } = await runJson<{ sessions: typeof sessions }>(
        ["tools", "call", "session-journal.recent", "--input", '{"limit": 5}'],
        { env },
      ));
      if (sessions.some((entry) => entry.sandbox_id === session.id)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(sessions.find((entry) => entry.sandbox_id === session.id)).toMatchObject({ commands: 1 });
  }, 120_000);
});

describe("cairn tools against Deno with the example plugins", () => {
  let deno: RunningServer;
  let dataDir: string;
  let home: CliHome;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "cairn-cli-deno-"));
    const { command, args } = serverRuntimes[1];
    deno = await startServer(command, args, {
      SVC_DATA_DIR: dataDir,
      SVC_LOG_LEVEL: "warn",
      ...withExamplePlugins,
    });
    home = await createHome();
    await signUpThroughCli(home, deno.baseUrl);
  }, 60_000);
  afterAll(async () => {
    await deno?.stop();
    await home?.remove();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("lists and calls a plugin's tools by name", async () => {
    const denoEnv = home.environment();
    const table = await runOk(["tools", "ls", "--plugin", "todo"], { env: denoEnv });
    expect(table.stdout).toMatch(/^todo\.list\s+todo\s+List tasks$/m);
    const added = await runJson<Task>(
      ["tools", "call", "todo.add", "--input", '{"text": "Served by Deno"}'],
      {
        env: denoEnv,
      },
    );
    const listed = await runJson<{ tasks: Task[] }>(["tools", "call", "todo.list"], { env: denoEnv });
    expect(listed.tasks).toEqual([added]);
    const help = await runOk(["tools", "call", "session-journal.recent", "--help"], { env: denoEnv });
    expect(help.stdout).toContain("Recent sandbox sessions (from plugin session-journal; read-only");
  });
});
