/**
 * `cairn mcp init TARGET`: puts a `cairn` entry (run `cairn mcp serve` with this server's URL and
 * key, or with `--data-dir DIR`, in-process on a data directory) into an MCP client's config file.
 * Only that entry changes; every other server and setting stays, and a file that does not parse is
 * left untouched with an error. The entry starts this checkout's CLI by absolute paths, so it runs
 * with no `cairn` (nor Node) on the client's PATH. A project's file (`.mcp.json`,
 * `.vscode/mcp.json`), which gets committed, names the key by a reference the client fills in; a
 * user's own file holds it. Either ends up 0600.
 */
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { parse, stringify } from "smol-toml";
import { CliError } from "./errors.ts";

export const mcpTargets = ["claude-code", "vscode", "cursor", "windsurf", "claude-desktop", "codex"] as const;
export type McpTarget = (typeof mcpTargets)[number];

export function targetFile(target: McpTarget): string {
  const home = homedir();
  switch (target) {
    case "claude-code":
      return join(process.cwd(), ".mcp.json");
    case "vscode":
      return join(process.cwd(), ".vscode", "mcp.json");
    case "cursor":
      return join(home, ".cursor", "mcp.json");
    case "windsurf":
      return join(home, ".codeium", "windsurf", "mcp_config.json");
    case "claude-desktop":
      if (process.platform === "darwin")
        return join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json");
      if (process.platform === "win32")
        return join(
          process.env.APPDATA ?? join(home, "AppData", "Roaming"),
          "Claude",
          "claude_desktop_config.json",
        );
      return join(home, ".config", "Claude", "claude_desktop_config.json");
    case "codex":
      return join(home, ".codex", "config.toml");
  }
}

export interface McpEntry {
  /** VS Code's entries say their transport. */
  type?: "stdio";
  command: string;
  args: string[];
  env?: { CAIRN_BASE_URL: string; CAIRN_API_KEY: string };
}

/** The VS Code input that asks for the key once and keeps it in VS Code's secret storage. */
export const vscodeKeyInput = {
  type: "promptString",
  id: "cairn-api-key",
  description: "Cairn API key (cairn_…)",
  password: true,
} as const;

/**
 * How a project's file names the key instead of holding it: Claude Code expands `${VAR}` from its
 * environment, VS Code fills `${input:ID}` from a prompt. The other targets are the user's own
 * files (not committed): they hold the key.
 */
export const keyReferences: Partial<Record<McpTarget, string>> = {
  "claude-code": `\${CAIRN_API_KEY}`,
  vscode: `\${input:${vscodeKeyInput.id}}`,
};

const checkout = join(import.meta.dirname, "..");

/**
 * This CLI by absolute paths, as an MCP client starts it: the checkout's Node 24 (the npm `node`
 * package `npm ci` installs) or else the Node running now, on cli/cairn.ts. Neither `cairn` nor
 * `node` need be on the client's PATH (GUI clients often have neither).
 */
export function cliCommand(): { command: string; args: string[] } {
  const bundled = join(checkout, "node_modules", ".bin", "node");
  const command = process.platform !== "win32" && existsSync(bundled) ? bundled : process.execPath;
  return { command, args: [join(checkout, "cli", "cairn.ts")] };
}

function entryFor(target: McpTarget, args: string[], env?: McpEntry["env"]): McpEntry {
  const cli = cliCommand();
  return {
    ...(target === "vscode" && { type: "stdio" as const }),
    command: cli.command,
    args: [...cli.args, ...args],
    ...(env && { env }),
  };
}

export const mcpEntry = (target: McpTarget, baseUrl: string, apiKey: string): McpEntry =>
  entryFor(target, ["mcp", "serve"], {
    CAIRN_BASE_URL: baseUrl,
    CAIRN_API_KEY: keyReferences[target] ?? apiKey,
  });

/** The entry that serves a data directory in the client's own `cairn` process: no server, no key. */
export const mcpDataDirEntry = (target: McpTarget, dataDir: string): McpEntry =>
  entryFor(target, ["mcp", "serve", "--data-dir", dataDir]);

const isTable = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

async function readExisting(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`, "invalid_config");
  }
}

/** Plain objects (the TOML parser's have no prototype), so only contents are compared. */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

const invalid = (path: string, why: string) =>
  new CliError(`${path} is not valid ${why}; fix or move it, it was left untouched`, "invalid_config");

function mergeJson(
  path: string,
  text: string | null,
  entry: McpEntry,
  target: McpTarget,
): { text: string; existed: boolean } {
  let document: unknown = {};
  if (text !== null && text.trim() !== "") {
    try {
      document = JSON.parse(text);
    } catch (error) {
      throw invalid(path, `JSON (${(error as Error).message})`);
    }
  }
  if (!isTable(document)) throw invalid(path, "MCP config (its top level is not an object)");
  const key = target === "vscode" ? "servers" : "mcpServers";
  const servers = document[key] ?? {};
  if (!isTable(servers)) throw invalid(path, `MCP config (${key} is not an object)`);
  const existed = Object.hasOwn(servers, "cairn");
  const next: Record<string, unknown> = { ...document, [key]: { ...servers, cairn: entry } };
  if (entry.env?.CAIRN_API_KEY === keyReferences.vscode && target === "vscode") {
    // VS Code's prompt for the key, in place of one of the same id.
    const inputs = document.inputs ?? [];
    if (!Array.isArray(inputs)) throw invalid(path, "MCP config (inputs is not an array)");
    next.inputs = [
      ...inputs.filter((input) => !isTable(input) || input.id !== vscodeKeyInput.id),
      vscodeKeyInput,
    ];
  }
  return { text: `${JSON.stringify(next, null, 2)}\n`, existed };
}

/** Lines of the `[mcp_servers.cairn]` tables removed, so comments elsewhere in the file survive. */
function withoutCairnTables(text: string): string {
  const kept: string[] = [];
  let skipping = false;
  for (const line of text.split("\n")) {
    const header = line.match(/^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/);
    if (header) skipping = /^mcp_servers\s*\.\s*("cairn"|'cairn'|cairn)(\s*\.|$)/.test(header[1]);
    if (!skipping) kept.push(line);
  }
  return kept.join("\n");
}

function mergeToml(path: string, text: string | null, entry: McpEntry): { text: string; existed: boolean } {
  let document: Record<string, unknown> = {};
  if (text !== null) {
    try {
      document = parse(text);
    } catch (error) {
      throw invalid(path, `TOML (${(error as Error).message.split("\n")[0]})`);
    }
  }
  const servers = document.mcp_servers ?? {};
  if (!isTable(servers)) throw invalid(path, "Codex config (mcp_servers is not a table)");
  const existed = Object.hasOwn(servers, "cairn");
  const expected = { ...document, mcp_servers: { ...servers, cairn: entry } };
  const section = stringify({ mcp_servers: { cairn: entry } });
  // Prefer a textual edit (keeps comments and layout); fall back to a rewrite when the entry was
  // written inline or with dotted keys and the edit does not give exactly the expected document.
  const base = text === null ? "" : withoutCairnTables(text).replace(/\s*$/, "");
  const edited = `${base}${base ? "\n\n" : ""}${section}\n`;
  try {
    if (isDeepStrictEqual(plain(parse(edited)), plain(expected))) return { text: edited, existed };
  } catch {
    // the textual edit broke the file: rewrite it whole below
  }
  return { text: `${stringify(expected)}\n`, existed };
}

/** Writes the entry; says whether it was added or replaced. */
export async function installMcpEntry(target: McpTarget, entry: McpEntry) {
  const path = targetFile(target);
  const current = await readExisting(path);
  const merged =
    target === "codex" ? mergeToml(path, current, entry) : mergeJson(path, current, entry, target);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, merged.text, { mode: 0o600 });
  await chmod(path, 0o600);
  return { path, action: merged.existed ? ("updated" as const) : ("added" as const) };
}
