/**
 * Accounts: `signup` and `login` (each creates an API key and saves it with the base URL; login
 * revokes the key the CLI saved before), `whoami`, and `keys create|ls|rm`, which use the
 * dashboard token of the last password login while it lasts and ask for the password after.
 */
import { CairnApiError, type CairnClient } from "cairn-client";
import type { Command } from "commander";
import { group, leaf } from "../command-kit.ts";
import { configPath, loadConfig, maskKey, updateConfig } from "../config.ts";
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
  keepPreviousKey?: boolean;
}

/** Keeps a login's dashboard token (0600 config file) so `keys` commands need no password while it lasts. */
function dashboardTokenFields(baseUrl: string, token: { access_token: string; expires_in: number }) {
  return {
    dashboard_token: token.access_token,
    dashboard_token_expires_at: new Date(Date.now() + token.expires_in * 1000).toISOString(),
    dashboard_base_url: baseUrl,
  };
}

const forgetDashboardToken = {
  dashboard_token: undefined,
  dashboard_token_expires_at: undefined,
  dashboard_base_url: undefined,
};

/** The saved dashboard token for `baseUrl`, unless it expires within the minute. */
async function savedDashboardToken(baseUrl: string): Promise<string | null> {
  const saved = await loadConfig();
  if (!saved.dashboard_token || saved.dashboard_base_url !== baseUrl) return null;
  const expiresAt = Date.parse(saved.dashboard_token_expires_at ?? "");
  return expiresAt - 60_000 > Date.now() ? saved.dashboard_token : null;
}

/**
 * Runs `work` with a dashboard token: the saved one while it lasts (unless credentials are
 * given), else a password login, prompted, whose token is saved for the next command.
 */
async function withDashboardToken<Result>(
  options: CredentialOptions,
  work: (client: CairnClient, token: string) => Promise<Result>,
): Promise<Result> {
  const { client, settings } = await anonymousClient();
  const credentialsGiven = options.email !== undefined || options.password !== undefined;
  const saved = credentialsGiven ? null : await savedDashboardToken(settings.baseUrl);
  if (saved !== null) {
    try {
      return await work(client, saved);
    } catch (error) {
      // The server no longer takes it (its signing key changed, or it restarted without one):
      // forget it and log in again.
      if (!(error instanceof CairnApiError && error.code === "invalid_token")) throw error;
      await updateConfig(forgetDashboardToken);
    }
  }
  const { email, password } = await askCredentials(options, false);
  const token = await client.login(email, password);
  await updateConfig(dashboardTokenFields(settings.baseUrl, token));
  return work(client, token.access_token);
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
  const previous = await loadConfig();
  await updateConfig({
    base_url: settings.baseUrl,
    api_key: created.key,
    api_key_id: created.id,
    ...dashboardTokenFields(settings.baseUrl, token),
  });
  // The key the last login or signup saved for this server is replaced, not left active: one
  // login, one key (--keep-previous-key keeps it). A key of another account is not this one's to
  // revoke: the server answers 404 and it stays.
  let revokedKeyId: string | null = null;
  const previousKeyId = previous.base_url === settings.baseUrl ? previous.api_key_id : undefined;
  if (!isSignup && !options.keepPreviousKey && previousKeyId && previousKeyId !== created.id) {
    try {
      await client.revokeApiKey(token.access_token, previousKeyId);
      revokedKeyId = previousKeyId;
    } catch (error) {
      if (!(error instanceof CairnApiError && error.statusCode === 404)) throw error;
    }
  }
  const { key: _rawKey, ...apiKey } = created;
  if (options.json) {
    printJson({
      account: token.account,
      api_key: apiKey,
      config_path: configPath(),
      ...(isSignup ? {} : { revoked_api_key_id: revokedKeyId }),
    });
    return;
  }
  success(
    `${isSignup ? "Signed up" : "Logged in"} as ${colour.bold(token.account.email)} (${token.account.id})`,
  );
  success(
    `API key "${created.name}" (${maskKey(created.key)}) saved to ${configPath()} for ${settings.baseUrl}`,
  );
  if (revokedKeyId) success(`Revoked the key the previous login saved (${revokedKeyId})`);
  if (process.env.CAIRN_API_KEY)
    note(
      "Note: CAIRN_API_KEY is set in this shell and overrides the saved key; unset it (`unset CAIRN_API_KEY`) to use the new one.",
    );
}

function addSessionStart(program: Command, name: "signup" | "login") {
  const isSignup = name === "signup";
  const command = leaf(
    program,
    name,
    isSignup
      ? "Create an account, create an API key and save both the key and the server's URL"
      : "Log in, create a new API key, save it with the server's URL and revoke the one the last login saved",
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
    .option("--key-name <name>", "name of the API key to create", "cairn-cli");
  if (!isSignup)
    command.option(
      "--keep-previous-key",
      "keep the API key the previous login saved active (by default it is revoked)",
    );
  command.action((options: SessionStartOptions) => startSession(options, isSignup));
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

  const keys = group(
    program,
    "keys",
    "Create, list and revoke API keys (the password is asked again only once the last login's dashboard token expires)",
    ["cairn keys create --name ci", "cairn keys ls", "cairn keys rm 3f2a…"],
  );
  const credentialFlags = (command: Command) =>
    command
      .option("--email <email>", "account email (prompted when the saved dashboard token has expired)")
      .option(
        "--password <password>",
        "password (prompted, hidden, when the saved dashboard token has expired)",
      );
  credentialFlags(
    leaf(
      keys,
      "create",
      "Create an API key and print it, once (it is not saved: `cairn config set-key` does that)",
      ["cairn keys create --name ci", "cairn keys create --name ci --json | jq -r .key"],
    ),
  )
    .option("--name <name>", "the key's name", "cairn-cli")
    .action(async (options: CredentialOptions & { name: string }) => {
      validateInput("create_api_key", { name: options.name }, { name: "--name" });
      const created = await withDashboardToken(options, (client, token) =>
        client.createApiKey(token, options.name),
      );
      if (options.json) return printJson(created);
      printFields([
        ["ID", created.id],
        ["Name", created.name],
        ["Key", created.key],
      ]);
      note("This is the only time the key is shown: store it now.");
    });
  credentialFlags(
    leaf(keys, "ls", "List the account's API keys, newest first, revoked ones included", ["cairn keys ls"]),
  ).action(async (options: CredentialOptions) => {
    const list = await withDashboardToken(options, (client, token) => client.listApiKeys(token));
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
      await withDashboardToken(options, (client, token) => client.revokeApiKey(token, keyId));
      if (options.json) return printJson({ status: "revoked", id: keyId });
      success(`Revoked API key ${keyId}`);
    },
  );
}
