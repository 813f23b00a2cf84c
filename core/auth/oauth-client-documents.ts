/**
 * Client ID metadata documents (MCP authorization 2025-11-25, draft-ietf-oauth-client-id-metadata-document):
 * a client whose `client_id` is an https URL is described by the JSON document at that URL, so it
 * needs no registration. The document is fetched through the Egress port, which refuses private,
 * loopback, link-local and metadata addresses at connect time and follows no redirect, with a
 * small size and time bound; documents are kept a few minutes. Such a client is public (PKCE, no
 * secret).
 */
import type { Egress } from "../ports/egress.ts";
import type { Logger } from "../ports/logger.ts";
import type { OAuthClientRecord, OAuthRepository } from "../ports/oauth-storage.ts";
import { redirectUriProblem } from "./oauth-clients.ts";
import { OAuthError } from "./oauth-values.ts";

export const clientDocumentMaxBytes = 5 * 1024;
export const clientDocumentTimeoutSeconds = 5;
const keptMilliseconds = 5 * 60_000;
const keptDocuments = 500;

/** Where an authorization request's or a token request's `client_id` is looked up. */
export interface OAuthClientDirectory {
  /** The client, or null when unknown; OAuthError `invalid_client` when its metadata document is unusable. */
  findClient(id: string): Promise<OAuthClientRecord | null>;
}

export const isClientDocumentUrl = (clientId: string) => clientId.startsWith("https://");

/** Why a URL cannot be a client id (https, a path, no fragment, credentials or dot segments), or null. */
function clientIdUrlProblem(clientId: string): string | null {
  if (clientId.length > 2_000) return "the client_id URL is too long";
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return "the client_id is not a URL";
  }
  if (url.protocol !== "https:") return "a client_id URL must be https";
  if (url.pathname === "/" || url.href !== clientId)
    return "a client_id URL needs a path and must be normalised";
  if (url.hash !== "" || clientId.includes("#")) return "a client_id URL must not have a fragment";
  if (url.username !== "" || url.password !== "") return "a client_id URL must not carry credentials";
  if (/\/\.\.?(\/|$)/.test(clientId)) return "a client_id URL must not have dot segments";
  return null;
}

function clientFromDocument(clientId: string, document: unknown, now: Date): OAuthClientRecord {
  const unusable = (why: string) => new OAuthError("invalid_client", `The client's metadata document ${why}`);
  if (typeof document !== "object" || document === null || Array.isArray(document))
    throw unusable("is not a JSON object");
  const fields = document as Record<string, unknown>;
  if (fields.client_id !== clientId) throw unusable("names another client_id");
  const redirectUris = fields.redirect_uris;
  if (!Array.isArray(redirectUris) || redirectUris.length === 0 || redirectUris.length > 10)
    throw unusable("needs 1–10 redirect_uris");
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem !== null) throw unusable(`has a bad redirect URI: ${problem}`);
  }
  const method = fields.token_endpoint_auth_method ?? "none";
  if (method !== "none") throw unusable('must use token_endpoint_auth_method "none" here');
  if ("client_secret" in fields) throw unusable("must not hold a client_secret");
  const name = fields.client_name;
  return {
    id: clientId,
    name: typeof name === "string" && name.trim() !== "" ? name.trim().slice(0, 200) : new URL(clientId).host,
    redirectUris: redirectUris as string[],
    grantTypes: ["authorization_code", "refresh_token"],
    tokenEndpointAuthMethod: "none",
    secretHash: null,
    createdAt: now,
  };
}

/**
 * Registered clients from storage, and URL client ids from their documents (kept
 * `keptMilliseconds`, at most `keptDocuments` of them).
 */
export function createOAuthClientDirectory(settings: {
  repository: OAuthRepository;
  egress: Egress;
  logger: Logger;
  now(): Date;
}): OAuthClientDirectory {
  const kept = new Map<string, { client: OAuthClientRecord; until: number }>();
  async function fetchDocument(clientId: string): Promise<OAuthClientRecord> {
    const problem = clientIdUrlProblem(clientId);
    if (problem !== null) throw new OAuthError("invalid_client", problem);
    const now = settings.now();
    const cached = kept.get(clientId);
    if (cached && cached.until > now.getTime()) return cached.client;
    let body: string;
    try {
      const response = await settings.egress.request({
        method: "GET",
        url: clientId,
        headers: { accept: "application/json" },
        body: null,
        timeoutSeconds: clientDocumentTimeoutSeconds,
        maxResponseBytes: clientDocumentMaxBytes,
        // Never the deployment's own network, whatever SVC_ALLOW_PRIVATE_EGRESS says for sandboxes.
        allowPrivate: false,
      });
      if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}`);
      if (response.truncated) throw new Error(`over ${clientDocumentMaxBytes} bytes`);
      body = response.body;
    } catch (error) {
      settings.logger.info(
        { reason: (error as Error).message },
        "an OAuth client metadata document was not fetched",
      );
      throw new OAuthError("invalid_client", "The client's metadata document could not be fetched");
    }
    let document: unknown;
    try {
      document = JSON.parse(body);
    } catch {
      throw new OAuthError("invalid_client", "The client's metadata document is not JSON");
    }
    const client = clientFromDocument(clientId, document, now);
    if (kept.size >= keptDocuments) kept.clear();
    kept.set(clientId, { client, until: now.getTime() + keptMilliseconds });
    return client;
  }
  return {
    findClient: (id) => (isClientDocumentUrl(id) ? fetchDocument(id) : settings.repository.findClient(id)),
  };
}
