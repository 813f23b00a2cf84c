/**
 * Where the client sends its API key. A base URL must be https, or plain http on this machine only
 * (the host is exactly `localhost` or `127.0.0.1`): a key must never cross a network in the clear.
 * The URL is parsed, not prefix-matched, so `http://localhost.evil.com`, `http://localhost@evil.com`
 * and `http://127.0.0.1.nip.io` are refused.
 */
import { CairnError } from "./errors.ts";

export const defaultBaseUrl = "http://127.0.0.1:8090";

const localHosts = new Set(["localhost", "127.0.0.1"]);

/** The base URL with its trailing slashes trimmed; throws `CairnError` when the rule refuses it. */
export function normalizeBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CairnError(`Invalid base URL ${JSON.stringify(text)}: not an absolute URL`);
  }
  if (url.username || url.password)
    throw new CairnError(`Invalid base URL ${url.origin}: it must not carry a user name or password`);
  if (url.search || url.hash)
    throw new CairnError(`Invalid base URL ${url.origin}: it must not carry a query or fragment`);
  const secure = url.protocol === "https:";
  const local = url.protocol === "http:" && localHosts.has(url.hostname);
  if (!secure && !local) {
    throw new CairnError(
      `Invalid base URL ${JSON.stringify(text)}: use https (plain http only for localhost or 127.0.0.1)`,
    );
  }
  return url.href.replace(/\/+$/, "");
}
