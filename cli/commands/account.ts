/**
 * Accounts: `signup` and `login` (each creates an API key and saves it with the base URL),
 * `whoami`, and `keys ls|rm`, which log in afresh every time: no dashboard session is kept.
 */
import type { CairnClient } from "cairn-client";
import type { Command } from "commander";
import { group, leaf } from "../command-kit.ts";
import { configPath, maskKey, updateConfig } from "../config.ts";
import { anonymousClient, authenticatedClient, ensureServerAnswers, type JsonOption } from "../context.ts";
import {
  colour,
  note,
  printFields,
  printJson,
  printTable,
  relativeTime,
  statusText,
  success,
} from "../output.ts";
import { askNewSecret, askSecret, askText } from "../prompts.ts";
import { checkField, validateInput } from "../schemas.ts";

interface CredentialOptions extends JsonOption {
  email?: string;
  password?: string;
}

/** A prompt's check from the same schema the server applies to that field. */
function schemaCheck(operation: "signup" | "login", field: "email" | "password") {
  return (value: string) => checkField(operation, field, value);
}

async function askCredentials(options: CredentialOptions, confirmPassword: boolean) {
  const operation = confirmPassword ? "signup" : "login";
  const email = options.email ?? (await askText("Email", schemaCheck(operation, "email")));
  const password =
    options.password ??
    (confirmPassword
      ? await askNewSecret("Password", schemaCheck(operation, "password"))
      : await askSecret("Password", schemaCheck(operation, "password")));
  validateInput(operation, { email, password });
  return { email, password };
}

interface SessionStartOptions extends CredentialOptions {
  url?: string;
  keyName: string;
}

/** signup/login, then a new API key saved with the base URL it belongs to. */
async function startSession(options: SessionStartOptions, isSignup: boolean) {
  const { client, settings } = await anonymousClient(options.url);
  validateInput("create_api_key", { name: options.keyName }, { name: "--key-name" });
  if (options.email === undefined || options.password === undefined)
    await ensureServerAnswers(settings.baseUrl);
  const { email, password } = await askCredentials(options, isSignup);
  const token = isSignup ? await client.signup(email, password) : await client.login(email, password);
  const created = await client.createApiKey(token.access_token, options.keyName);
  await updateConfig({ base_url: settings.baseUrl, api_key: created.key });
  const { key: _rawKey, ...apiKey } = created;
  if (options.json) {
    printJson({ account: token.account, api_key: apiKey, config_path: configPath() });
    return;
  }
  success(
    `${isSignup ? "Signed up" : "Logged in"} as ${colour.bold(token.account.email)} (${token.account.id})`,
  );
  success(
    `API key "${created.name}" (${maskKey(created.key)}) saved to ${configPath()} for ${settings.baseUrl}`,
  );
  if (process.env.CAIRN_API_KEY)
    note(
      "Note: CAIRN_API_KEY is set in this shell and overrides the saved key; unset it (`unset CAIRN_API_KEY`) to use the new one.",
    );
}

function addSessionStart(program: Command, name: "signup" | "login") {
  const isSignup = name === "signup";
  leaf(
    program,
    name,
    isSignup
      ? "Create an account, create an API key and save both the key and the server's URL"
      : "Log in, create a new API key and save it with the server's URL",
    [
      `cairn ${name}`,
      `cairn ${name} --email me@example.com --url https://cairn.example.com`,
      `printf 'me@example.com\\npassword\\n${isSignup ? "password\\n" : ""}' | cairn ${name}`,
    ],
  )
    .option("--email <email>", "account email (prompted when omitted)")
    .option("--password <password>", `password (prompted${isSignup ? " twice" : ""}, hidden, when omitted)`)
    .option(
      "--url <url>",
      "server base URL (default: CAIRN_BASE_URL, the saved one, or http://127.0.0.1:8090)",
    )
    .option("--key-name <name>", "name of the API key to create", "cairn-cli")
    .action((options: SessionStartOptions) => startSession(options, isSignup));
}

async function loggedIn(options: CredentialOptions): Promise<{ client: CairnClient; token: string }> {
  const { client } = await anonymousClient();
  const { email, password } = await askCredentials(options, false);
  return { client, token: (await client.login(email, password)).access_token };
}

export function addAccountCommands(program: Command): void {
  addSessionStart(program, "signup");
  addSessionStart(program, "login");

  leaf(program, "whoami", "Show the account behind the API key, its usage and limits", [
    "cairn whoami",
    "cairn whoami --json | jq .usage",
  ]).action(async (options: JsonOption) => {
    const { client, settings } = await authenticatedClient();
    const [account, usage] = await Promise.all([client.account(), client.usage()]);
    if (options.json) return printJson({ account, usage });
    printFields([
      ["Email", account.email],
      ["Account", account.id],
      ["Server", settings.baseUrl],
      [
        "Sandbox hours",
        `${usage.monthly_sandbox_hours_used} of ${usage.monthly_sandbox_hours_limit} this month`,
      ],
      ["Active sandboxes", `${usage.concurrent_sandboxes} of ${usage.concurrent_sandboxes_limit}`],
      ["Sandboxes created", usage.total_sandboxes_created],
      [
        "Rate limit",
        `${usage.sandbox_ops_rate_limit_remaining} of ${usage.sandbox_ops_rate_limit} sandbox operations left this minute`,
      ],
    ]);
  });

  const keys = group(program, "keys", "List and revoke API keys (asks for email and password every time)", [
    "cairn keys ls",
    "cairn keys rm 3f2a…",
  ]);
  const credentialFlags = (command: Command) =>
    command
      .option("--email <email>", "account email (prompted when omitted)")
      .option("--password <password>", "password (prompted, hidden, when omitted)");
  credentialFlags(
    leaf(keys, "ls", "List the account's API keys, newest first, revoked ones included", ["cairn keys ls"]),
  ).action(async (options: CredentialOptions) => {
    const { client, token } = await loggedIn(options);
    const list = await client.listApiKeys(token);
    if (options.json) return printJson(list);
    printTable(
      ["ID", "NAME", "PREFIX", "STATUS", "CREATED", "LAST USED"],
      list.map((key) => [
        key.id,
        key.name,
        key.prefix,
        key.revoked_at ? statusText("revoked") : statusText("active"),
        relativeTime(key.created_at),
        relativeTime(key.last_used_at),
      ]),
      "No API keys.",
    );
  });
  credentialFlags(leaf(keys, "rm <key-id>", "Revoke an API key", ["cairn keys rm 3f2a9c1e-…"])).action(
    async (keyId: string, options: CredentialOptions) => {
      validateInput("revoke_api_key", { key_id: keyId }, { key_id: "KEY_ID" });
      const { client, token } = await loggedIn(options);
      await client.revokeApiKey(token, keyId);
      if (options.json) return printJson({ status: "revoked", id: keyId });
      success(`Revoked API key ${keyId}`);
    },
  );
}
