/**
 * What every command needs from its surroundings: the settings, a client for them, whether to
 * print JSON, and which sandbox session it means when `--session` is left out.
 */
import { CairnClient, CairnConnectionError } from "cairn-client";
import { requireApiKey, resolveSettings, type Settings } from "./config.ts";
import { CliError } from "./errors.ts";
import { jsonFetch } from "./json-fetch.ts";

export interface JsonOption {
  json?: boolean;
}

/** A client with the saved or exported API key; an error (exit 3) when there is none. */
export async function authenticatedClient(): Promise<{ client: CairnClient; settings: Settings }> {
  const settings = await resolveSettings();
  const apiKey = requireApiKey(settings);
  return { client: new CairnClient({ baseUrl: settings.baseUrl, apiKey, fetchImpl: jsonFetch }), settings };
}

/**
 * Throws the network error a request would when nothing answers at `baseUrl`, so signup and login
 * say so before asking for an email and a password.
 */
export async function ensureServerAnswers(baseUrl: string): Promise<void> {
  try {
    await jsonFetch(`${baseUrl}/health`, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
    const reason = error instanceof Error ? `${error.message}${cause}` : String(error);
    throw new CairnConnectionError(`GET /health failed: ${reason}`, { cause: error });
  }
}

/** A client without a key, for signup, login and the key routes (they take a dashboard token). */
export async function anonymousClient(
  urlFlag?: string,
): Promise<{ client: CairnClient; settings: Settings }> {
  const settings = await resolveSettings(urlFlag);
  return {
    client: new CairnClient({ baseUrl: settings.baseUrl, apiKey: "", fetchImpl: jsonFetch }),
    settings,
  };
}

/**
 * The session a command acts on: the flag's, else the only active one. With none or several
 * active, an error lists them, so the next command line is easy to write.
 */
export async function resolveSession(client: CairnClient, flag: string | undefined): Promise<string> {
  if (flag) return flag;
  const active = await client.listSandboxes({ activeOnly: true });
  if (active.length === 1) return active[0].id;
  if (active.length === 0)
    throw new CliError("no active session: create one with `cairn session create`", "no_active_session");
  throw new CliError(
    `${active.length} active sessions, pass --session with one of: ${active.map((session) => session.id).join(", ")}`,
    "ambiguous_session",
  );
}
