/**
 * `cairn memory …`: remember, ingest, recall, profile, ls, get, relations, forget, metrics, export
 * and import. Export and import move whole files; import splits a large file into the server's
 * batch size with a progress line.
 */
import { writeFile } from "node:fs/promises";
import type { ImportedMemory, ImportedRelation, IngestOptions, Memory } from "cairn-client";
import type { Command } from "commander";
import { group, leaf, parseJson, readInputFile, readStdin } from "../command-kit.ts";
import { authenticatedClient, type JsonOption } from "../context.ts";
import { CliError } from "../errors.ts";
import { planImport } from "../memory-import.ts";
import {
  colour,
  createProgress,
  note,
  printFields,
  printJson,
  printLine,
  printTable,
  relativeTime,
  startSpinner,
  success,
} from "../output.ts";
import { schemaOption, toNumber, validateInput } from "../schemas.ts";

const oneLine = (text: string, width = 70) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
};

const memoryRows = (memories: Array<Memory & { score?: number }>, withScore = false) =>
  memories.map((memory) => [
    ...(withScore ? [memory.score?.toFixed(3) ?? "-"] : []),
    memory.id,
    memory.kind,
    memory.scope,
    relativeTime(memory.updated_at),
    oneLine(memory.content),
  ]);
const memoryHeaders = ["ID", "KIND", "SCOPE", "UPDATED", "CONTENT"];

function parseMetadata(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  const value = parseJson(text, "--metadata");
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new CliError("--metadata must be a JSON object", "validation_error");
  return value as Record<string, unknown>;
}

interface ScopeOption extends JsonOption {
  scope?: string;
  limit?: number;
}

export function addMemoryCommands(program: Command): void {
  const memory = group(
    program,
    "memory",
    "Long-term memory: remember, recall, list, forget, export and import",
    [
      'cairn memory remember "The user prefers tabs" --kind preference',
      'cairn memory recall "editor settings"',
      "cairn memory export --output memories.json",
    ],
  );

  leaf(memory, "remember <content>", "Store one memory", [
    'cairn memory remember "The deploy target is fly.io"',
    'cairn memory remember "Use pnpm" --kind instruction --scope web --importance 0.8',
  ])
    .addOption(schemaOption("--scope <scope>", "remember", "scope"))
    .addOption(schemaOption("--kind <kind>", "remember", "kind"))
    .addOption(schemaOption("--metadata <json>", "remember", "metadata", "a JSON object"))
    .addOption(schemaOption("--source-session-id <id>", "remember", "source_session_id"))
    .addOption(schemaOption("--importance <n>", "remember", "importance").argParser(toNumber))
    .action(
      async (
        content: string,
        options: JsonOption & {
          scope?: string;
          kind?: Memory["kind"];
          metadata?: string;
          sourceSessionId?: string;
          importance?: number;
        },
      ) => {
        const metadata = parseMetadata(options.metadata);
        validateInput(
          "remember",
          {
            content,
            scope: options.scope,
            kind: options.kind,
            metadata,
            source_session_id: options.sourceSessionId,
            importance: options.importance,
          },
          { content: "CONTENT" },
        );
        const { client } = await authenticatedClient();
        const stored = await client.remember(content, {
          scope: options.scope,
          kind: options.kind,
          metadata,
          sourceSessionId: options.sourceSessionId,
          importance: options.importance,
        });
        if (options.json) return printJson(stored);
        success(`Remembered ${stored.id} (${stored.kind}, scope ${stored.scope})`);
      },
    );

  leaf(memory, "ingest [file]", "Extract memories from a longer text (a file, or stdin)", [
    "cairn memory ingest notes.md --scope project-x",
    "cat transcript.txt | cairn memory ingest",
  ])
    .addOption(schemaOption("--scope <scope>", "ingest_memory", "scope"))
    .addOption(schemaOption("--kind <kind>", "ingest_memory", "kind"))
    .addOption(schemaOption("--metadata <json>", "ingest_memory", "metadata", "a JSON object"))
    .addOption(schemaOption("--source-session-id <id>", "ingest_memory", "source_session_id"))
    .action(
      async (
        file: string | undefined,
        options: JsonOption & {
          scope?: string;
          kind?: IngestOptions["kind"];
          metadata?: string;
          sourceSessionId?: string;
        },
      ) => {
        const content = file === undefined ? await readStdin() : await readInputFile(file);
        const metadata = parseMetadata(options.metadata);
        validateInput(
          "ingest_memory",
          {
            content,
            scope: options.scope,
            kind: options.kind,
            metadata,
            source_session_id: options.sourceSessionId,
          },
          { content: file ?? "stdin" },
        );
        const { client } = await authenticatedClient();
        const result = await client.ingestMemory(content, {
          scope: options.scope,
          kind: options.kind,
          metadata,
          sourceSessionId: options.sourceSessionId,
        });
        if (options.json) return printJson(result);
        success(`Stored ${result.memories.length} memor${result.memories.length === 1 ? "y" : "ies"}`);
        printTable(memoryHeaders, memoryRows(result.memories));
      },
    );

  leaf(memory, "recall <query>", "Search memories, best first", [
    'cairn memory recall "deploy"',
    'cairn memory recall "tabs" --scope web --limit 3',
  ])
    .addOption(schemaOption("--scope <scope>", "recall", "scope"))
    .addOption(schemaOption("--limit <n>", "recall", "limit").argParser(toNumber))
    .action(async (query: string, options: ScopeOption) => {
      validateInput("recall", { q: query, scope: options.scope, limit: options.limit }, { q: "QUERY" });
      const { client } = await authenticatedClient();
      const result = await client.recall(query, { scope: options.scope, limit: options.limit });
      if (options.json) return printJson(result);
      // "semantic search unavailable: …": a person sees it too, on stderr beside the table.
      for (const warning of result.warnings ?? []) note(`Warning: ${warning}`);
      printTable(["SCORE", ...memoryHeaders], memoryRows(result.memories, true), "No memories match.");
    });

  leaf(memory, "profile", "The standing facts, preferences and instructions, and recent context", [
    "cairn memory profile --scope web",
  ])
    .addOption(schemaOption("--scope <scope>", "memory_profile", "scope"))
    .addOption(schemaOption("--limit <n>", "memory_profile", "limit").argParser(toNumber))
    .action(async (options: ScopeOption) => {
      validateInput("memory_profile", { scope: options.scope, limit: options.limit });
      const { client } = await authenticatedClient();
      const profile = await client.memoryProfile({ scope: options.scope, limit: options.limit });
      if (options.json) return printJson(profile);
      printLine(colour.bold("Static"));
      printTable(memoryHeaders, memoryRows(profile.static), "None.");
      printLine();
      printLine(colour.bold("Dynamic"));
      printTable(memoryHeaders, memoryRows(profile.dynamic), "None.");
    });

  leaf(memory, "ls", "List memories, most recently updated first", [
    "cairn memory ls",
    "cairn memory ls --scope web --limit 20 --offset 20",
  ])
    .addOption(schemaOption("--scope <scope>", "list_memories", "scope"))
    .addOption(schemaOption("--include-superseded", "list_memories", "include_superseded"))
    .addOption(schemaOption("--limit <n>", "list_memories", "limit").argParser(toNumber))
    .addOption(schemaOption("--offset <n>", "list_memories", "offset").argParser(toNumber))
    .action(async (options: ScopeOption & { includeSuperseded?: boolean; offset?: number }) => {
      const query = {
        scope: options.scope,
        include_superseded: options.includeSuperseded,
        limit: options.limit,
        offset: options.offset,
      };
      validateInput("list_memories", query);
      const { client } = await authenticatedClient();
      const list = await client.listMemories({
        scope: options.scope,
        includeSuperseded: options.includeSuperseded,
        limit: options.limit,
        offset: options.offset,
      });
      if (options.json) return printJson(list);
      printTable(memoryHeaders, memoryRows(list), "No memories.");
    });

  leaf(memory, "get <id>", "Show one memory", ["cairn memory get 1d2c…"]).action(
    async (id: string, options: JsonOption) => {
      const { client } = await authenticatedClient();
      const found = await client.getMemory(id);
      if (options.json) return printJson(found);
      printFields([
        ["ID", found.id],
        ["Kind", found.kind],
        ["Scope", found.scope],
        ["Importance", found.importance],
        ["Created", relativeTime(found.created_at)],
        ["Updated", relativeTime(found.updated_at)],
        ["Expires", found.expires_at ? relativeTime(found.expires_at) : null],
        ["Superseded by", found.superseded_by_id],
        ["Metadata", Object.keys(found.metadata ?? {}).length ? JSON.stringify(found.metadata) : null],
      ]);
      printLine();
      printLine(found.content);
    },
  );

  leaf(memory, "relations <id>", "Show how a memory relates to others", ["cairn memory relations 1d2c…"])
    .addOption(schemaOption("--limit <n>", "memory_relations", "limit").argParser(toNumber))
    .action(async (id: string, options: ScopeOption) => {
      validateInput("memory_relations", { memory_id: id, limit: options.limit });
      const { client } = await authenticatedClient();
      const result = await client.memoryRelations(id, { limit: options.limit });
      if (options.json) return printJson(result);
      printTable(
        ["SOURCE", "RELATION", "TARGET", "CONFIDENCE", "CREATED"],
        result.relations.map((relation) => [
          relation.source_memory_id,
          relation.relation_type,
          relation.target_memory_id,
          relation.confidence.toFixed(2),
          relativeTime(relation.created_at),
        ]),
        "No relations.",
      );
    });

  leaf(memory, "forget <id>", "Delete a memory for good", ["cairn memory forget 1d2c…"]).action(
    async (id: string, options: JsonOption) => {
      const { client } = await authenticatedClient();
      await client.forgetMemory(id);
      if (options.json) return printJson({ status: "forgotten", id });
      success(`Forgot memory ${id}`);
    },
  );

  leaf(memory, "metrics", "Counts by kind and embedding coverage", ["cairn memory metrics"])
    .addOption(schemaOption("--scope <scope>", "memory_metrics", "scope"))
    .action(async (options: ScopeOption) => {
      validateInput("memory_metrics", { scope: options.scope });
      const { client } = await authenticatedClient();
      const metrics = await client.memoryMetrics({ scope: options.scope });
      if (options.json) return printJson(metrics);
      printFields([
        ["Memories", metrics.total_memories],
        ...Object.entries(metrics.by_kind).map(([kind, count]): [string, number] => [`  ${kind}`, count]),
        ["Embedded", `${metrics.embedded_memories} (${(metrics.embedding_coverage * 100).toFixed(1)}%)`],
        ["Model", metrics.embedding_model_id],
      ]);
    });

  leaf(memory, "export", "Write every memory and relation as JSON (importable as it is)", [
    "cairn memory export > memories.json",
    "cairn memory export --scope web --output web.json",
  ])
    .addOption(schemaOption("--scope <scope>", "export_memories", "scope"))
    .option("--output <file>", "write to this file instead of stdout")
    .action(async (options: ScopeOption & { output?: string }) => {
      validateInput("export_memories", { scope: options.scope });
      const { client } = await authenticatedClient();
      const spinner = options.output ? startSpinner("Exporting memories") : null;
      // Every page the server answers with, joined by the client: the file holds the whole export.
      const { next_cursor: _, ...exported } = await client
        .exportMemories({ scope: options.scope })
        .finally(() => spinner?.stop());
      const text = `${JSON.stringify(exported, null, 2)}\n`;
      if (!options.output) return void process.stdout.write(text);
      await writeFile(options.output, text, { mode: 0o600 });
      if (options.json)
        return printJson({
          path: options.output,
          memories: exported.memories.length,
          relations: exported.relations.length,
        });
      success(
        `Exported ${exported.memories.length} memories and ${exported.relations.length} relations to ${options.output}`,
      );
    });

  leaf(
    memory,
    "import <file>",
    "Import an export file (or {memories, relations} JSON; '-' for stdin) in batches",
    ["cairn memory import memories.json", "cairn memory export | cairn memory import -"],
  ).action(async (file: string, options: JsonOption) => {
    const parsed = parseJson(await readInputFile(file), file) as
      | { memories?: unknown; relations?: unknown }
      | unknown[];
    const memories = (Array.isArray(parsed) ? parsed : parsed?.memories) as ImportedMemory[] | undefined;
    const relations = ((Array.isArray(parsed) ? [] : parsed?.relations) ?? []) as ImportedRelation[];
    if (!Array.isArray(memories) || !Array.isArray(relations))
      throw new CliError(
        `${file} must hold {"memories": [...], "relations": [...]} or a list of memories`,
        "validation_error",
      );
    if (memories.length === 0) throw new CliError(`${file} holds no memories`, "validation_error");
    const plan = planImport(memories, relations);
    for (const batch of plan.batches)
      validateInput(
        "import_memories",
        { ...batch },
        { memories: `${file}: memories`, relations: `${file}: relations` },
      );
    const { client } = await authenticatedClient();
    const progress = createProgress("Imported memories", memories.length);
    const imported: unknown[] = [];
    for (const batch of plan.batches) {
      const result = await client.importMemories(
        batch.memories as ImportedMemory[],
        batch.relations as ImportedRelation[],
      );
      imported.push(...result.memories);
      if (!options.json) progress.update(imported.length);
    }
    if (!options.json) progress.done();
    if (plan.droppedRelations)
      note(
        colour.yellow(
          `${plan.droppedRelations} relations linked memories in different batches and were not imported`,
        ),
      );
    if (options.json) return printJson({ source_session_id: null, memories: imported });
    success(
      `Imported ${imported.length} memories in ${plan.batches.length} batch${plan.batches.length === 1 ? "" : "es"}`,
    );
  });
}
