/**
 * Where the client sends its API key. A base URL must be https, or plain http on this machine only
 * (the host is exactly `localhost` or `127.0.0.1`): a key must never cross a network in the clear.
 * The URL is parsed, not prefix-matched, so `http://localhost.evil.com`, `http://localhost@evil.com`
 * and `http://127.0.0.1.nip.io` are refused. The CLI applies the same rule, worded for its settings.
 */
import { CairnError } from "./errors.ts";

export const defaultBaseUrl = "http://127.0.0.1:8090";

const localHosts = new Set(["localhost", "127.0.0.1"]);

/** Why the rule refuses a base URL; `origin` is set once the text parsed as a URL. */
export type BaseUrlProblem =
  | { problem: "not_a_url" }
  | { problem: "credentials" | "query_or_fragment" | "insecure"; origin: string };

/** The base URL with its trailing slashes trimmed, or why the rule refuses it. */
export function checkBaseUrl(text: string): { url: string } | BaseUrlProblem {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: "not_a_url" };
  }
  if (url.username || url.password) return { problem: "credentials", origin: url.origin };
  if (url.search || url.hash) return { problem: "query_or_fragment", origin: url.origin };
  const secure = url.protocol === "https:";
  const local = url.protocol === "http:" && localHosts.has(url.hostname);
  if (!secure && !local) return { problem: "insecure", origin: url.origin };
  return { url: url.href.replace(/\/+$/, "") };
}

/** The base URL with its trailing slashes trimmed; throws `CairnError` when the rule refuses it. */
export function normalizeBaseUrl(text: string): string {
  const checked = checkBaseUrl(text);
  if ("url" in checked) return checked.url;
  switch (checked.problem) {
    case "not_a_url":
      throw new CairnError(`Invalid base URL ${JSON.stringify(text)}: not an absolute URL`);
    case "credentials":
      throw new CairnError(`Invalid base URL ${checked.origin}: it must not carry a user name or password`);
    case "query_or_fragment":
      throw new CairnError(`Invalid base URL ${checked.origin}: it must not carry a query or fragment`);
    case "insecure":
      throw new CairnError(
        `Invalid base URL ${JSON.stringify(text)}: use https (plain http only for localhost or 127.0.0.1)`,
      );
  }
}
