/**
 * What an OAuth client of /mcp needs besides Cairn: an `OAuthClientProvider` for the MCP SDK that
 * keeps everything in memory, and a person at a browser, played over fetch: open the consent
 * page, read its form (hidden fields, CSRF token, cookie) and submit it.
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";

export const redirectUrl = "http://127.0.0.1:49152/callback";

export class MemoryOAuthProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;
  readonly redirectUrl = redirectUrl;
  /** Set: the client's id is this URL of its metadata document, where the server supports that. */
  readonly clientMetadataUrl: string | undefined;
  constructor(clientMetadataUrl?: string) {
    this.clientMetadataUrl = clientMetadataUrl;
  }
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: "SDK test client",
    redirect_uris: [redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
  state() {
    return "state-from-the-client";
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.client = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const entities: Record<string, string> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#39;": "'",
};
const decodeEntities = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => entities[entity]);

export interface ConsentForm {
  fields: Record<string, string>;
  /** The `Cookie` header to send back. */
  cookie: string;
}

/** Opens the authorization URL as a browser would and reads the form it shows. */
export async function openConsentPage(
  fetchFunction: typeof fetch,
  authorizationUrl: string | URL,
): Promise<ConsentForm> {
  const page = await fetchFunction(authorizationUrl, { redirect: "manual" });
  if (page.status !== 200) throw new Error(`consent page: ${page.status} ${await page.text()}`);
  const html = await page.text();
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    fields[match[1]] = decodeEntities(match[2]);
  const cookie = page.headers
    .getSetCookie()
    .map((header) => header.split(";")[0])
    .join("; ");
  return { fields, cookie };
}

/** Submits the consent form; the answer is not followed (a 303 to the client, or a page). */
export function submitConsent(
  fetchFunction: typeof fetch,
  origin: string,
  form: ConsentForm,
  extra: Record<string, string>,
): Promise<Response> {
  return fetchFunction(`${origin}/oauth/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: form.cookie },
    body: new URLSearchParams({ ...form.fields, ...extra }).toString(),
  });
}

/** Logs in and approves; returns the URL the browser was sent back to. */
export async function approve(
  fetchFunction: typeof fetch,
  authorizationUrl: string | URL,
  account: { email: string; password: string },
): Promise<URL> {
  const form = await openConsentPage(fetchFunction, authorizationUrl);
  const origin = new URL(authorizationUrl).origin;
  const answer = await submitConsent(fetchFunction, origin, form, { ...account, decision: "approve" });
  if (answer.status !== 303) throw new Error(`consent: ${answer.status} ${await answer.text()}`);
  return new URL(answer.headers.get("location") as string);
}
