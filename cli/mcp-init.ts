/**
 * `cairn mcp init TARGET`: puts a `cairn` entry (run `cairn mcp serve` with this server's URL and
 * key, or with `--data-dir DIR`, in-process on a data directory) into an MCP client's config file. Only that entry changes; every other server and setting
 * stays, and a file that does not parse is left untouched with an error. The file holds the key,
 * so it ends up 0600.
 */
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { parse, stringify } from "smol-toml";
import { CliError } from "./errors.ts";

export const mcpTargets = ["claude-code", "cursor", "windsurf", "claude-desktop", "codex"] as const;
export type McpTarget = (typeof mcpTargets)[number];

export function targetFile(target: McpTarget): string {
  const home = homedir();
  switch (target) {
    case "claude-code":
      return join(process.cwd(), ".mcp.json");
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
  command: string;
  args: string[];
  env?: { CAIRN_BASE_URL: string; CAIRN_API_KEY: string };
}

export const mcpEntry = (baseUrl: string, apiKey: string): McpEntry => ({
  command: "cairn",
  args: ["mcp", "serve"],
  env: { CAIRN_BASE_URL: baseUrl, CAIRN_API_KEY: apiKey },
});

/** The entry that serves a data directory in the client's own `cairn` process: no server, no key. */
export const mcpDataDirEntry = (dataDir: string): McpEntry => ({
  command: "cairn",
  args: ["mcp", "serve", "--data-dir", dataDir],
});

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

function mergeJson(path: string, text: string | null, entry: McpEntry): { text: string; existed: boolean } {
  let document: unknown = {};
  if (text !== null && text.trim() !== "") {
    try {
      document = JSON.parse(text);
    } catch (error) {
      throw invalid(path, `JSON (${(error as Error).message})`);
    }
  }
  if (!isTable(document)) throw invalid(path, "MCP config (its top level is not an object)");
  const servers = document.mcpServers ?? {};
  if (!isTable(servers)) throw invalid(path, "MCP config (mcpServers is not an object)");
  const existed = Object.hasOwn(servers, "cairn");
  const next = { ...document, mcpServers: { ...servers, cairn: entry } };
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
  const merged = target === "codex" ? mergeToml(path, current, entry) : mergeJson(path, current, entry);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, merged.text, { mode: 0o600 });
  await chmod(path, 0o600);
  return { path, action: merged.existed ? ("updated" as const) : ("added" as const) };
}
