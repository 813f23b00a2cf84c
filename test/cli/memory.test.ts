/**
 * `cairn memory …` against a live server: every subcommand, JSON parsed, and a file larger than
 * one import batch going in with its progress lines and its relations kept.
 */
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planImport } from "../../cli/memory-import.ts";
import { type LiveServer, startLiveServer } from "../mcp/mcp-harness.ts";
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
const json = <T = Record<string, unknown>>(args: string[], input?: string) =>
  runJson<T>(args, { env, input });

interface MemoryOut {
  id: string;
  content: string;
  kind: string;
  scope: string;
  importance: number;
  metadata: Record<string, unknown>;
}

beforeAll(async () => {
  server = await startLiveServer({
    SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000",
    SVC_MEMORY_RATE_LIMIT_PER_MINUTE: "1000",
  });
  cli = await createHome();
  env = cli.environment();
  await signUpThroughCli(cli, server.baseUrl);
});
afterAll(async () => {
  await server.close();
  await cli.remove();
});

describe("cairn memory", () => {
  it("remembers, recalls, lists, shows and forgets", async () => {
    const stored = await json<MemoryOut>([
      "memory",
      "remember",
      "The user prefers tabs over spaces",
      "--kind",
      "preference",
      "--scope",
      "editor",
      "--importance",
      "0.9",
      "--metadata",
      '{"source":"cli-test"}',
    ]);
    expect(stored).toMatchObject({
      kind: "preference",
      scope: "editor",
      importance: 0.9,
      metadata: { source: "cli-test" },
    });
    await runOk(["memory", "remember", "The deploy target is fly.io", "--scope", "editor"], { env });

    const recalled = await json<{ memories: Array<MemoryOut & { score: number }> }>([
      "memory",
      "recall",
      "tabs spaces",
      "--scope",
      "editor",
    ]);
    expect(recalled.memories[0].id).toBe(stored.id);
    const table = await runOk(["memory", "recall", "tabs", "--scope", "editor"], { env });
    expect(table.stdout).toMatch(/^SCORE\s+ID\s+KIND\s+SCOPE\s+UPDATED\s+CONTENT$/m);
    expect(table.stdout).toContain("The user prefers tabs over spaces");

    const profile = await json<{ static: MemoryOut[]; dynamic: MemoryOut[] }>([
      "memory",
      "profile",
      "--scope",
      "editor",
    ]);
    expect(profile.static.map((memory) => memory.id)).toContain(stored.id);
    const listed = await json<MemoryOut[]>(["memory", "ls", "--scope", "editor", "--limit", "1"]);
    expect(listed).toHaveLength(1);
    expect((await runOk(["memory", "get", stored.id], { env })).stdout).toContain(
      "The user prefers tabs over spaces",
    );
    expect(await json(["memory", "relations", stored.id])).toEqual({ memory_id: stored.id, relations: [] });
    const metrics = await json<{ total_memories: number; by_kind: Record<string, number> }>([
      "memory",
      "metrics",
      "--scope",
      "editor",
    ]);
    expect(metrics).toMatchObject({ total_memories: 2, by_kind: { preference: 1, fact: 1 } });

    expect(await json(["memory", "forget", stored.id])).toEqual({ status: "forgotten", id: stored.id });
    expectFailure(await runCairn(["memory", "get", stored.id], { env }), 4, "memory_not_found");
    const kind = await runCairn(["memory", "remember", "x", "--kind", "opinion"], { env });
    expect(kind.code).toBe(2);
    expect(kind.stderr).toMatch(
      /^cairn: option '--kind <kind>' argument 'opinion' is invalid\. Allowed choices are fact, /,
    );
  });

  it("refuses values outside the schema before any request (exit 2)", async () => {
    const importance = await runCairn(["memory", "remember", "x", "--importance", "2"], { env });
    expectFailure(importance, 2, "validation_error");
    expect(importance.stderr).toContain("--importance");
    expectFailure(await runCairn(["memory", "recall", "x", "--limit", "0"], { env }), 2, "validation_error");
    expectFailure(
      await runCairn(["memory", "remember", "x", "--metadata", "[1]"], { env }),
      2,
      "validation_error",
    );
  });

  it("ingests text from stdin", async () => {
    const result = await json<{ memories: MemoryOut[] }>(
      ["memory", "ingest", "--scope", "notes"],
      "I live in Lisbon. My favourite editor is Helix. I always write tests first.",
    );
    expect(result.memories.length).toBeGreaterThan(0);
    expect(result.memories.every((memory) => memory.scope === "notes")).toBe(true);
  });

  it("ingests with one kind for every memory extracted, and refuses an unknown kind", async () => {
    const result = await json<{ memories: MemoryOut[] }>(
      ["memory", "ingest", "--scope", "kinds", "--kind", "goal"],
      "Ship the importer by Friday. Then write the migration guide.",
    );
    expect(result.memories.length).toBeGreaterThan(0);
    expect(result.memories.every((memory) => memory.kind === "goal")).toBe(true);
    const refused = await runCairn(["memory", "ingest", "--kind", "wish"], { env, input: "x y" });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^cairn: option '--kind <kind>' argument 'wish' is invalid\. Allowed choices are auto, /,
    );
  });

  it("exports to a file and imports a file larger than one batch, relations kept", async () => {
    const memories = Array.from({ length: 620 }, (_, index) => ({
      id: `m${index}`,
      content: `Imported fact number ${index}`,
      scope: "bulk",
    }));
    const relations = [
      { source_memory_id: "m0", target_memory_id: "m619", relation_type: "related" },
      { source_memory_id: "m1", target_memory_id: "m2", relation_type: "extends" },
    ];
    const file = join(cli.home, "bulk.json");
    await writeFile(file, JSON.stringify({ memories, relations }));
    const imported = await runOk(["memory", "import", file], { env });
    expect(imported.stderr).toMatch(/^Imported memories \d+\/620 \(\d+%\)$/m);
    expect(imported.stderr).toContain("Imported memories 620/620 (100%)");
    expect(imported.stdout).toContain("Imported 620 memories in 2 batches");

    const exportFile = join(cli.home, "export.json");
    await runOk(["memory", "export", "--scope", "bulk", "--output", exportFile], { env });
    expect((await stat(exportFile)).mode & 0o777).toBe(0o600);
    const exported = JSON.parse(await readFile(exportFile, "utf8")) as {
      memories: MemoryOut[];
      relations: Array<{ source_memory_id: string; target_memory_id: string; relation_type: string }>;
    };
    expect(exported.memories).toHaveLength(620);
    // The server links similar memories by itself; the file's own relations are among them.
    const idOf = (index: number) =>
      exported.memories.find((memory) => memory.content === `Imported fact number ${index}`)?.id;
    expect(exported.relations).toContainEqual(
      expect.objectContaining({
        source_memory_id: idOf(1),
        target_memory_id: idOf(2),
        relation_type: "extends",
      }),
    );
    expect(exported.relations).toContainEqual(
      expect.objectContaining({
        source_memory_id: idOf(0),
        target_memory_id: idOf(619),
        relation_type: "related",
      }),
    );

    const fromStdout = JSON.parse((await runOk(["memory", "export", "--scope", "bulk"], { env })).stdout);
    expect(fromStdout.memories).toHaveLength(620);
    expectFailure(
      await runCairn(["memory", "import", join(cli.home, "missing.json")], { env }),
      2,
      "missing_input",
    );
    expectFailure(await runCairn(["memory", "import", "-"], { env, input: "{nope" }), 2, "invalid_json");
  });
});

describe("planning an import", () => {
  const item = (id: string) => ({ id, content: id });
  it("keeps linked memories in one batch and counts only cut relations", () => {
    const memories = Array.from({ length: 1001 }, (_, index) => item(`m${index}`));
    const relations = [
      { source_memory_id: "m0", target_memory_id: "m1000", relation_type: "related" },
      { source_memory_id: "m10", target_memory_id: "m11", relation_type: "related" },
    ];
    const plan = planImport(memories, relations);
    expect(plan.droppedRelations).toBe(0);
    expect(plan.batches.every((batch) => batch.memories.length <= 500)).toBe(true);
    expect(plan.batches.flatMap((batch) => batch.memories)).toHaveLength(1001);
    const holding = (id: string) =>
      plan.batches.findIndex((batch) => batch.memories.some((memory) => memory.id === id));
    expect(holding("m0")).toBe(holding("m1000"));
    expect(plan.batches.flatMap((batch) => batch.relations)).toHaveLength(2);
  });

  it("cuts a linked group larger than a batch and reports the relations across the cut", () => {
    const memories = Array.from({ length: 600 }, (_, index) => item(`m${index}`));
    const relations = memories.slice(1).map((memory, index) => ({
      source_memory_id: `m${index}`,
      target_memory_id: memory.id as string,
      relation_type: "related",
    }));
    const plan = planImport(memories, relations);
    expect(plan.batches.map((batch) => batch.memories.length)).toEqual([500, 100]);
    expect(plan.droppedRelations).toBe(1);
  });
});
