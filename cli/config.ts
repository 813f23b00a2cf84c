/**
 * The CLI's saved settings: `base_url` and `api_key` in `$XDG_CONFIG_HOME/cairn/config.toml`
 * (default ~/.config/cairn/config.toml), the file 0600 and its folder 0700 because it holds a key
 * (and, for its 30 minutes or so, the dashboard token of the last login).
 * CAIRN_BASE_URL and CAIRN_API_KEY override the file; the base URL from either obeys the https rule.
 */
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { parse, stringify } from "smol-toml";
import { checkBaseUrl, defaultBaseUrl } from "./base-url.ts";
import { CliError, exitCodes } from "./errors.ts";

export interface SavedConfig {
  base_url?: string;
  api_key?: string;
  /** The id of `api_key`, which the next `cairn login` revokes (docs/cli.md#keys-and-logins). */
  api_key_id?: string;
  /**
   * The dashboard token from the last password login, kept until it expires so `keys` commands
   * do not ask for the password each time; valid only for `dashboard_base_url`.
   */
  dashboard_token?: string;
  dashboard_token_expires_at?: string;
  dashboard_base_url?: string;
}

const savedFields = [
  "base_url",
  "api_key",
  "api_key_id",
  "dashboard_token",
  "dashboard_token_expires_at",
  "dashboard_base_url",
] as const;

export function configDirectory(): string {
  const xdg = process.env.XDG_CONFIG_HOME;
  return join(xdg?.startsWith("/") ? xdg : join(homedir(), ".config"), "cairn");
}

export const configPath = () => join(configDirectory(), "config.toml");

/** The saved settings; an absent file is empty, a broken one is an error naming the file. */
export async function loadConfig(path = configPath()): Promise<SavedConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`, "invalid_config");
  }
  let parsed: Record<string, unknown>;
  try {
    parsed = parse(text);
  } catch (error) {
    throw new CliError(
      `${path} is not valid TOML: ${(error as Error).message.split("\n")[0]}`,
      "invalid_config",
    );
  }
  const config: SavedConfig = {};
  for (const field of savedFields) {
    const value = parsed[field];
    if (value === undefined) continue;
    if (typeof value !== "string") throw new CliError(`${path}: ${field} must be a string`, "invalid_config");
    config[field] = value;
  }
  return config;
}

/** Writes the settings atomically (a temp file renamed over), 0600 in a 0700 folder. */
export async function saveConfig(config: SavedConfig, path = configPath()): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  const body = Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined));
  await writeFile(temporary, `${stringify(body)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

export async function updateConfig(change: SavedConfig): Promise<SavedConfig> {
  const next = { ...(await loadConfig()), ...change };
  await saveConfig(next);
  return next;
}

export interface Settings {
  baseUrl: string;
  apiKey: string | null;
  /** Where each value came from, for `config show` and for error messages. */
  baseUrlSource: string;
  apiKeySource: string | null;
}

/** A base URL checked by the https rule; `source` names where it came from in the error. */
export function requireValidBaseUrl(text: string, source: string): string {
  const checked = checkBaseUrl(text, source);
  if ("problem" in checked) throw new CliError(checked.problem, "invalid_base_url");
  return checked.url;
}

/** The effective settings: flag, then environment, then the file, then the default. */
export async function resolveSettings(urlFlag?: string): Promise<Settings> {
  const saved = await loadConfig();
  const [text, source] = urlFlag
    ? [urlFlag, "--url"]
    : process.env.CAIRN_BASE_URL
      ? [process.env.CAIRN_BASE_URL, "CAIRN_BASE_URL"]
      : saved.base_url
        ? [saved.base_url, `base_url in ${configPath()}`]
        : [defaultBaseUrl, "default"];
  const apiKey = process.env.CAIRN_API_KEY || saved.api_key || null;
  return {
    baseUrl: requireValidBaseUrl(text, source),
    apiKey,
    baseUrlSource: source,
    apiKeySource: process.env.CAIRN_API_KEY ? "CAIRN_API_KEY" : saved.api_key ? configPath() : null,
  };
}

export function requireApiKey(settings: Settings): string {
  if (settings.apiKey) return settings.apiKey;
  throw new CliError(
    "no API key: run `cairn login` (or `cairn signup`), or set CAIRN_API_KEY",
    "missing_credentials",
    exitCodes.authentication,
  );
}

/** `cairn_abcd…wxyz`: enough to recognise a key, too little to use it. */
export function maskKey(key: string): string {
  return key.length <= 14 ? "****" : `${key.slice(0, 10)}…${key.slice(-4)}`;
}
