/** `cairn config set-url|set-key|show`: the saved settings file, edited without a server. */
import type { Command } from "commander";
import { group, leaf } from "../command-kit.ts";
import {
  configPath,
  loadConfig,
  maskKey,
  requireValidBaseUrl,
  resolveSettings,
  updateConfig,
} from "../config.ts";
import type { JsonOption } from "../context.ts";
import { CliError } from "../errors.ts";
import { printFields, printJson, success } from "../output.ts";

export function addConfigCommands(program: Command): void {
  const config = group(program, "config", "Show or change the saved base URL and API key", [
    "cairn config show",
    "cairn config set-url https://cairn.example.com",
    "cairn config set-key cairn_…",
  ]);

  leaf(config, "set-url <url>", "Save the server's base URL (https, or http for localhost/127.0.0.1)", [
    "cairn config set-url https://cairn.example.com",
    "cairn config set-url http://127.0.0.1:8090",
  ]).action(async (url: string, options: JsonOption) => {
    const baseUrl = requireValidBaseUrl(url, "URL");
    await updateConfig({ base_url: baseUrl });
    if (options.json) return printJson({ path: configPath(), base_url: baseUrl });
    success(`Saved base URL ${baseUrl} to ${configPath()}`);
  });

  leaf(config, "set-key <key>", "Save an API key (from `cairn keys` or the dashboard)", [
    "cairn config set-key cairn_…",
  ]).action(async (key: string, options: JsonOption) => {
    if (!/^cairn_[0-9A-Za-z]{38}$/.test(key))
      throw new CliError(
        "that is not a Cairn API key (cairn_ followed by 38 letters and digits)",
        "invalid_api_key",
      );
    // A key saved by hand is not one `cairn login` made, so the next login leaves it alone.
    await updateConfig({ api_key: key, api_key_id: undefined });
    if (options.json) return printJson({ path: configPath(), api_key: maskKey(key) });
    success(`Saved API key ${maskKey(key)} to ${configPath()}`);
  });

  leaf(config, "show", "Show the saved settings and the ones in effect (the key masked)", [
    "cairn config show",
    "CAIRN_BASE_URL=https://cairn.example.com cairn config show",
  ]).action(async (options: JsonOption) => {
    const saved = await loadConfig();
    const effective = await resolveSettings();
    const masked = (key: string | null | undefined) => (key ? maskKey(key) : null);
    if (options.json)
      return printJson({
        path: configPath(),
        saved: { base_url: saved.base_url ?? null, api_key: masked(saved.api_key) },
        effective: {
          base_url: effective.baseUrl,
          base_url_source: effective.baseUrlSource,
          api_key: masked(effective.apiKey),
          api_key_source: effective.apiKeySource,
        },
      });
    printFields([
      ["Config file", configPath()],
      ["Base URL", `${effective.baseUrl} (${effective.baseUrlSource})`],
      ["API key", effective.apiKey ? `${maskKey(effective.apiKey)} (${effective.apiKeySource})` : "not set"],
    ]);
  });
}
