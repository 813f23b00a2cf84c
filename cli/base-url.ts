/**
 * The CLI's wording of the SDK's base-URL rule (`checkBaseUrl` in cairn-client: https, or plain
 * http only for localhost and 127.0.0.1, parsed): the same rule, with messages that name the
 * setting the URL came from.
 */
import { checkBaseUrl as checkRule } from "cairn-client";

export { defaultBaseUrl } from "cairn-client";

/** The base URL without a trailing slash, or an error message naming what is wrong. */
export function checkBaseUrl(text: string, source = "CAIRN_BASE_URL"): { url: string } | { problem: string } {
  const checked = checkRule(text);
  if ("url" in checked) return checked;
  switch (checked.problem) {
    case "not_a_url":
      return { problem: `${source} is not a URL: ${JSON.stringify(text)}` };
    case "credentials":
      return { problem: `${source} must not carry a user name or password` };
    case "query_or_fragment":
      return { problem: `${source} must not carry a query or fragment` };
    case "insecure":
      return {
        problem: `${source} must use https (plain http only for localhost or 127.0.0.1): ${checked.origin}`,
      };
  }
}
