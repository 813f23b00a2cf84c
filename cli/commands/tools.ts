/**
 * `cairn tools ls` and `cairn tools call NAME`: every tool the server offers, built-in or from a
 * plugin, through the generic routes (`GET /v1/tools`, `POST /v1/tools/{name}`). Nothing here
 * knows a tool in advance: the list, each tool's help and its input checks come from the server,
 * so a plugin's tools work from the CLI without a new command.
 */
import { CairnApiError, type CairnClient, type ToolDescription } from "cairn-client";
import type { Command } from "commander";
import { group, leaf, parseJson, readInputFile } from "../command-kit.ts";
import { authenticatedClient, type JsonOption } from "../context.ts";
import { CliError, exitCodes } from "../errors.ts";
import { printJson, printTable } from "../output.ts";
import { closeNames, toolHelp } from "../tool-help.ts";

/** `--input`: JSON text, `@file`, or `-` for stdin; it must hold an object, checked before any request. */
async function readToolInput(text: string | undefined): Promise<Record<string, unknown>> {
  if (text === undefined) return {};
  const [source, origin] =
    text === "-"
      ? [await readInputFile("-"), "stdin"]
      : text.startsWith("@")
        ? [await readInputFile(text.slice(1)), text.slice(1)]
        : [text, "--input"];
  const value = parseJson(source, origin);
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new CliError(`${origin} must hold a JSON object (the tool's input)`, "validation_error");
  return value as Record<string, unknown>;
}

/**
 * How long to wait for a tool's answer: a sandbox-side `timeout` in the input (exec's, at most
 * 100 s; 30 s when left out) plus 15 s, the SDK's rule for exec, so the server's own answer (with
 * `timed_out`) arrives before the CLI gives up on any tool.
 */
function answerWaitMs(input: Record<string, unknown>): number {
  const sandboxSeconds = typeof input.timeout === "number" && input.timeout > 0 ? input.timeout : 30;
  return (sandboxSeconds + 15) * 1000;
}

function unknownTool(name: string, tools: ToolDescription[]): CliError {
  const close = closeNames(
    name,
    tools.map((tool) => tool.name),
  );
  const suggestion = close.length ? `; did you mean ${close.join(", ")}?` : "";
  return new CliError(
    `no tool named ${JSON.stringify(name)}${suggestion} (\`cairn tools ls\` lists them)`,
    "not_found",
    exitCodes.notFound,
  );
}

async function findTool(client: CairnClient, name: string): Promise<ToolDescription> {
  const { tools } = await client.listTools();
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw unknownTool(name, tools);
  return tool;
}

interface CallOptions extends JsonOption {
  input?: string;
  idempotencyKey?: string;
  help?: boolean;
}

export function addToolCommands(program: Command): void {
  const tools = group(program, "tools", "Every tool the server offers, built-in and from plugins, by name", [
    "cairn tools ls",
    "cairn tools call recall --help",
    'cairn tools call recall --input \'{"q": "deploy"}\'',
  ]);

  leaf(tools, "ls", "List the tools: name, the plugin that adds it (- for built-in) and title", [
    "cairn tools ls",
    "cairn tools ls --plugin session-journal",
    "cairn tools ls --json | jq '.tools[].name'",
  ])
    .option("--plugin <name>", "only the tools this plugin adds")
    .action(async (options: JsonOption & { plugin?: string }) => {
      const { client } = await authenticatedClient();
      const listing = await client.listTools();
      const shown =
        options.plugin === undefined
          ? listing.tools
          : listing.tools.filter((tool) => tool.plugin === options.plugin);
      if (options.json) return printJson({ tools: shown });
      const plugins = [...new Set(listing.tools.flatMap((tool) => (tool.plugin ? [tool.plugin] : [])))];
      printTable(
        ["NAME", "PLUGIN", "TITLE"],
        shown.map((tool) => [tool.name, tool.plugin ?? "-", tool.title]),
        `No tools from plugin ${options.plugin} (plugins with tools: ${plugins.join(", ") || "none"}).`,
      );
    });

  // The help of `call NAME` is the tool's own, fetched from the server, so commander's is off here.
  leaf(tools, "call [name]", "Call a tool by name with a JSON input; prints its output as JSON", [
    'cairn tools call recall --input \'{"q": "deploy", "limit": 3}\'',
    "cairn tools call session-journal.recent --input @input.json",
    'echo \'{"content": "Deploys run on Tuesdays"}\' | cairn tools call remember --input -',
    "cairn tools call recall --help   # the tool's input fields, from its schema",
  ])
    .usage("[name] --input JSON|@file|- [--idempotency-key KEY] [--json]")
    .helpOption(false)
    .option("--input <json>", "the tool's input: JSON, @file, or - for stdin (default {})")
    .option("--idempotency-key <key>", "a repeat with the same key and input replays the first answer")
    .option("-h, --help", "with NAME, the tool's title, description and input fields; else this help")
    .action(async (name: string | undefined, options: CallOptions, command: Command) => {
      if (name === undefined) {
        if (options.help) return command.outputHelp();
        command.error("error: missing required argument 'name'", { code: "commander.missingArgument" });
      }
      if (options.help) {
        const { client } = await authenticatedClient();
        return void process.stdout.write(toolHelp(await findTool(client, name)));
      }
      const input = await readToolInput(options.input);
      const { client } = await authenticatedClient();
      const output = await client
        .callTool(name, input, { idempotencyKey: options.idempotencyKey, timeoutMs: answerWaitMs(input) })
        .catch(async (error: unknown) => {
          // A 404 is either no such tool or the tool's own answer (an unknown sandbox id).
          if (error instanceof CairnApiError && error.statusCode === 404) await findTool(client, name);
          throw error;
        });
      printJson(output);
    });
}
