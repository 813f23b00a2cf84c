/**
 * Where a client finds its Cairn server. A base URL must be https, or plain http on this machine
 * only (localhost, 127.0.0.1): an API key must never cross a network in the clear. The check
 * parses the URL; a prefix test would let `http://localhost.attacker.example` through. The SDK
 * applies the same rule at construction; this copy words the message after where the URL came from.
 */
export const defaultBaseUrl = "http://127.0.0.1:8090";

const localHosts = new Set(["localhost", "127.0.0.1"]);

/** The base URL without a trailing slash, or an error message naming what is wrong. */
export function checkBaseUrl(text: string, source = "CAIRN_BASE_URL"): { url: string } | { problem: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: `${source} is not a URL: ${JSON.stringify(text)}` };
  }
  if (url.username || url.password) return { problem: `${source} must not carry a user name or password` };
  if (url.search || url.hash) return { problem: `${source} must not carry a query or fragment` };
  const local = localHosts.has(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && local)) {
    return {
      problem: `${source} must use https (plain http only for localhost or 127.0.0.1): ${url.origin}`,
    };
  }
  return { url: url.href.replace(/\/+$/, "") };
}
