/**
 * `cairn mcp init TARGET` (an MCP client's config gets a `cairn` entry) and `cairn mcp serve`
 * (the stdio MCP server: in-process on a data directory with `--data-dir`, else a proxy to a
 * server). `serve` keeps its own failure lines (`cairn: …`, exit 1): an MCP client shows stderr
 * as the server's log, and its tests pin those lines.
 */
import { resolve } from "node:path";
import type { Command } from "commander";
import { type ResultMode, resultModes, toolProfiles } from "../../transports/mcp/profiles.ts";
import { checkBaseUrl, defaultBaseUrl } from "../base-url.ts";
import { group, leaf } from "../command-kit.ts";
import { configPath, loadConfig } from "../config.ts";
import type { JsonOption } from "../context.ts";
import { CliError, exitCodes } from "../errors.ts";
import { serveInProcess } from "../mcp-in-process.ts";
import {
  installMcpEntry,
  keyReferences,
  type McpTarget,
  mcpDataDirEntry,
  mcpEntry,
  mcpTargets,
} from "../mcp-init.ts";
import { refusalIn } from "../mcp-refusal.ts";
import { printJson, success } from "../output.ts";

/**
 * The server's own words when it refused (its error envelope sits at the end of the SDK's
 * message), with the details' messages: for an unknown `--tools` they name the profiles it has.
 */
function upstreamProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const refusal = refusalIn(message);
  if (refusal === null) return message;
  const details = Array.isArray(refusal.details) ? refusal.details.flatMap((item) => item.msg ?? []) : [];
  return `the server refused: ${refusal.message}${details.length ? ` (${details.join("; ")})` : ""} [${refusal.code}]`;
}

/** A plugin's name (docs/plugins.md): its tools are a profile of their own, which the server checks. */
const pluginName = /^[a-z][a-z0-9-]{0,31}$/;

function fail(message: string): never {
  process.stderr.write(`cairn: ${message}\n`);
  process.exit(1);
}

/** The registry in this process, on the data directory: the server's settings, none of the CLI's. */
async function serveDataDirectory(dataDir: string, tools: string, results: ResultMode | undefined) {
  if (dataDir.trim() === "") fail("--data-dir needs a directory");
  const directory = resolve(dataDir);
  try {
    await serveInProcess({ dataDir: directory, tools, results });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    fail(`cannot serve ${directory}: ${message.split("\n")[0]}`);
  }
}

async function serve(options: { tools: string; dataDir?: string; results?: string }) {
  if (!(toolProfiles as readonly string[]).includes(options.tools) && !pluginName.test(options.tools))
    fail(
      `--tools must be one of ${toolProfiles.join(", ")}, or a plugin's name, not ${JSON.stringify(options.tools)}`,
    );
  if (options.results !== undefined && !(resultModes as readonly string[]).includes(options.results))
    fail(`--results must be one of ${resultModes.join(", ")}, not ${JSON.stringify(options.results)}`);
  const results = options.results as ResultMode | undefined;
  if (options.dataDir !== undefined) return serveDataDirectory(options.dataDir, options.tools, results);
  let saved: Awaited<ReturnType<typeof loadConfig>> = {};
  try {
    saved = await loadConfig();
  } catch (error) {
    fail((error as Error).message);
  }
  const [text, source] = process.env.CAIRN_BASE_URL
    ? [process.env.CAIRN_BASE_URL, "CAIRN_BASE_URL"]
    : saved.base_url
      ? [saved.base_url, `base_url in ${configPath()}`]
      : [defaultBaseUrl, "CAIRN_BASE_URL"];
  const checked = checkBaseUrl(text, source);
  if ("problem" in checked) fail(checked.problem);
  const apiKey = process.env.CAIRN_API_KEY || saved.api_key;
  if (!apiKey)
    fail(`CAIRN_API_KEY is not set and ${configPath()} has no api_key: run \`cairn login\` or export a key`);
  // A reference the MCP client left as it is (`${CAIRN_API_KEY}` in a .mcp.json): its variable is unset.
  if (/^\$\{.*\}$/.test(apiKey))
    fail(
      `CAIRN_API_KEY is ${apiKey}, a reference your MCP client did not fill in: set CAIRN_API_KEY where it starts`,
    );
  // Loaded here: the MCP SDK costs every other command start-up time it does not need.
  const { serveMcpProxy } = await import("../mcp-proxy.ts");
  try {
    await serveMcpProxy({ baseUrl: checked.url, apiKey, tools: options.tools, results });
  } catch (error) {
    fail(`cannot connect to the Cairn MCP server at ${checked.url}/mcp: ${upstreamProblem(error)}`);
  }
}

/** What a project's file (which names the key, not holds it) asks of the user. */
function keyNote(target: McpTarget): string {
  if (target === "claude-code")
    return `It names the key as ${keyReferences[target]}: set CAIRN_API_KEY in the environment Claude Code starts in. `;
  if (target === "vscode")
    return "VS Code asks for the API key when it first starts the server and keeps it in its secret storage. ";
  return "";
}

export function addMcpCommands(program: Command): void {
  const mcp = group(program, "mcp", "Use Cairn's tools from an MCP client (Claude Code, Cursor, …)", [
    "cairn mcp init claude-code",
    "cairn mcp serve --tools memory",
  ]);

  leaf(
    mcp,
    "init <target>",
    `Add a "cairn" server to an MCP client's config (${mcpTargets.join(", ")}); other entries are kept`,
    [
      "cairn mcp init claude-code   # ./.mcp.json in this folder",
      "cairn mcp init vscode        # ./.vscode/mcp.json in this folder",
      "cairn mcp init cursor",
      "cairn mcp init codex --data-dir ~/.cairn   # no server: the client runs cairn on ~/.cairn",
    ],
  )
    .option(
      "--data-dir <dir>",
      "the entry serves this data directory in-process (cairn mcp serve --data-dir) instead of forwarding to the saved server",
    )
    .action(async (target: string, options: JsonOption & { dataDir?: string }) => {
      if (!(mcpTargets as readonly string[]).includes(target))
        throw new CliError(
          `unknown target ${JSON.stringify(target)}: use one of ${mcpTargets.join(", ")}`,
          "validation_error",
        );
      if (options.dataDir !== undefined) {
        if (options.dataDir.trim() === "")
          throw new CliError("--data-dir needs a directory", "validation_error");
        const result = await installMcpEntry(
          target as McpTarget,
          mcpDataDirEntry(target as McpTarget, resolve(options.dataDir)),
        );
        if (options.json) return printJson({ target, ...result });
        return success(
          `${result.action === "added" ? "Added" : "Updated"} cairn (data directory ${resolve(options.dataDir)}) in ${result.path}. Restart your MCP client.`,
        );
      }
      const saved = await loadConfig();
      const baseUrl = process.env.CAIRN_BASE_URL || saved.base_url;
      const apiKey = process.env.CAIRN_API_KEY || saved.api_key;
      if (!baseUrl || !apiKey)
        throw new CliError(
          `no saved base_url and api_key in ${configPath()}: run \`cairn login\` first`,
          "missing_credentials",
          exitCodes.authentication,
        );
      const checked = checkBaseUrl(baseUrl, "base_url");
      if ("problem" in checked) throw new CliError(checked.problem, "invalid_base_url");
      const result = await installMcpEntry(
        target as McpTarget,
        mcpEntry(target as McpTarget, checked.url, apiKey),
      );
      const reference = keyReferences[target as McpTarget];
      if (options.json) return printJson({ target, ...result, ...(reference && { api_key: reference }) });
      success(
        `${result.action === "added" ? "Added" : "Updated"} cairn in ${result.path}. ${keyNote(target as McpTarget)}Restart your MCP client.`,
      );
    });

  group(
    mcp,
    "serve",
    "Serve Cairn's MCP tools on stdio: in this process on a data directory, or forwarding to a server",
    [
      "cairn mcp serve --data-dir ~/.cairn   # no server: SQLite and local sandboxes in ~/.cairn",
      "cairn mcp serve",
      "CAIRN_BASE_URL=https://cairn.example.com CAIRN_API_KEY=cairn_… cairn mcp serve --tools sandbox",
      "cairn mcp serve --tools todo   # only the tools of the plugin todo",
    ],
  )
    .option(
      "--tools <profile>",
      `which tools to serve: ${toolProfiles.join(", ")}, or a plugin's name for its tools alone`,
      "all",
    )
    .option(
      "--data-dir <dir>",
      "serve in this process on this data directory (created on first use) as its local account, with no server; without it, forward to CAIRN_BASE_URL",
    )
    .option(
      "--results <mode>",
      `how a result travels: ${resultModes.join(", ")} (default: both, or text for a client of a protocol before 2025-06-18)`,
    )
    .action(serve);
}
