/** `cairn secrets create|ls|rm` and `cairn allowlist get|set|clear`: account-wide settings. */
import type { AllowedCommandRule } from "cairn-client";
import type { Command } from "commander";
import { group, leaf, parseJson, readInputFile } from "../command-kit.ts";
import { authenticatedClient, type JsonOption } from "../context.ts";
import { printJson, printLine, printTable, relativeTime, success } from "../output.ts";
import { askSecret } from "../prompts.ts";
import { collect, schemaOption, validateInput } from "../schemas.ts";

type StoredRule = string | { command: string; args_allow: string[]; args_deny: string[] };

function describeRule(rule: StoredRule): string {
  if (typeof rule === "string") return rule;
  const parts = [rule.command];
  if (rule.args_allow.length)
    parts.push(`allow ${rule.args_allow.map((pattern) => `/${pattern}/`).join(", ")}`);
  if (rule.args_deny.length) parts.push(`deny ${rule.args_deny.map((pattern) => `/${pattern}/`).join(", ")}`);
  return parts.join("  ");
}

export function addSecretAndAllowlistCommands(program: Command): void {
  const secrets = group(program, "secrets", "Store secrets the HTTP broker may send to allowed hosts", [
    "cairn secrets create GITHUB_TOKEN --allowed-hosts api.github.com",
    "cairn secrets ls",
  ]);

  leaf(secrets, "create <name>", "Store a secret (its value is prompted, hidden, when --value is omitted)", [
    "cairn secrets create GITHUB_TOKEN --allowed-hosts api.github.com",
    "printf '%s\\n' \"$TOKEN\" | cairn secrets create GITHUB_TOKEN --allowed-hosts api.github.com",
  ])
    .option("--value <value>", "the secret value (prefer the hidden prompt: flags land in shell history)")
    .addOption(
      schemaOption("--allowed-hosts <host>", "create_secret", "allowed_hosts", "repeatable").argParser(
        collect,
      ),
    )
    .action(async (name: string, options: JsonOption & { value?: string; allowedHosts?: string[] }) => {
      validateInput(
        "create_secret",
        { name, value: "-", allowed_hosts: options.allowedHosts ?? [] },
        { name: "NAME" },
      );
      const value = options.value ?? (await askSecret(`Value of ${name}`));
      validateInput(
        "create_secret",
        { name, value, allowed_hosts: options.allowedHosts ?? [] },
        { value: "the value" },
      );
      const { client } = await authenticatedClient();
      const created = await client.createSecret(name, value, { allowedHosts: options.allowedHosts });
      if (options.json) return printJson(created);
      success(`Stored secret ${created.name} (${created.id}) for ${created.allowed_hosts.join(", ")}`);
    });

  leaf(secrets, "ls", "List secrets (never their values)", ["cairn secrets ls"]).action(
    async (options: JsonOption) => {
      const { client } = await authenticatedClient();
      const list = await client.listSecrets();
      if (options.json) return printJson(list);
      printTable(
        ["ID", "NAME", "ALLOWED HOSTS", "CREATED", "LAST USED"],
        list.map((secret) => [
          secret.id,
          secret.name,
          secret.allowed_hosts.join(","),
          relativeTime(secret.created_at),
          relativeTime(secret.last_used_at),
        ]),
        "No secrets.",
      );
    },
  );

  leaf(secrets, "rm <id>", "Delete a secret", ["cairn secrets rm 0b6f…"]).action(
    async (id: string, options: JsonOption) => {
      const { client } = await authenticatedClient();
      await client.deleteSecret(id);
      if (options.json) return printJson({ status: "deleted", id });
      success(`Deleted secret ${id}`);
    },
  );

  const allowlist = group(program, "allowlist", "The commands `exec` may run in this account's sandboxes", [
    "cairn allowlist get",
    'echo \'["ls", {"command": "git", "args_allow": ["^status"], "args_deny": []}]\' > rules.json && cairn allowlist set rules.json',
    "cairn allowlist clear",
  ]);

  leaf(allowlist, "get", "Show the rules (none means every command is allowed)", [
    "cairn allowlist get",
  ]).action(async (options: JsonOption) => {
    const { client } = await authenticatedClient();
    const result = await client.getAllowedCommands();
    if (options.json) return printJson(result);
    if (result.rules.length === 0) printLine("No rules: every command is allowed.");
    for (const rule of result.rules) printLine(describeRule(rule));
  });

  leaf(allowlist, "set <file>", "Replace the rules with a JSON array from FILE ('-' for stdin)", [
    "cairn allowlist set rules.json",
    'echo \'["ls", "python3"]\' | cairn allowlist set -',
  ]).action(async (file: string, options: JsonOption) => {
    const rules = parseJson(await readInputFile(file), file);
    validateInput("set_allowed_commands", { rules }, { rules: file });
    const { client } = await authenticatedClient();
    const result = await client.setAllowedCommands(rules as AllowedCommandRule[]);
    if (options.json) return printJson(result);
    success(`Saved ${result.rules.length} rule${result.rules.length === 1 ? "" : "s"}`);
  });

  leaf(allowlist, "clear", "Remove every rule (every command allowed again)", [
    "cairn allowlist clear",
  ]).action(async (options: JsonOption) => {
    const { client } = await authenticatedClient();
    await client.clearAllowedCommands();
    if (options.json) return printJson({ status: "cleared" });
    success("Cleared the allowlist: every command is allowed");
  });
}
