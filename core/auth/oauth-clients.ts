/**
 * OAuth clients: dynamic client registration (RFC 7591) and client authentication at the token
 * endpoint. Redirect URIs are https, or http on a loopback address (a native client's local
 * listener, RFC 8252 §7.3), never with a fragment or credentials; they are matched exactly later.
 */
import type { OAuthClientRecord, OAuthRepository } from "../ports/oauth-storage.ts";
import { constantTimeEqual, sha256Hex } from "./api-keys.ts";
import { OAuthError, randomSecret } from "./oauth-values.ts";

export const tokenEndpointAuthMethods = ["none", "client_secret_post", "client_secret_basic"] as const;
export const maxRedirectUris = 10;
const maxRedirectUriLength = 2_000;
const maxClientNameLength = 200;
const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Why a redirect URI may not be registered, or null. */
export function redirectUriProblem(value: unknown): string | null {
  if (typeof value !== "string" || value.length === 0 || value.length > maxRedirectUriLength)
    return `a redirect URI is a string of 1–${maxRedirectUriLength} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${JSON.stringify(value)} is not an absolute URL`;
  }
  if (value.includes("#")) return "a redirect URI must not have a fragment";
  if (url.username !== "" || url.password !== "") return "a redirect URI must not carry credentials";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && loopbackHosts.has(url.hostname)) return null;
  return `${JSON.stringify(value)} must be https://, or http:// on localhost, 127.0.0.1 or [::1]`;
}

const invalidMetadata = (description: string) => new OAuthError("invalid_client_metadata", description);

function stringList(value: unknown, field: string, fallback: string[]): string[] {
  if (value === undefined) return fallback;
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string") || value.length > 10)
    throw invalidMetadata(`${field} must be a list of at most 10 strings`);
  return value as string[];
}

export interface RegisteredClient {
  record: OAuthClientRecord;
  /** The raw secret of a confidential client, returned once. */
  secret: string | null;
}

/** Validates a registration request (RFC 7591 §2) and stores the client. */
export async function registerOAuthClient(
  repository: OAuthRepository,
  metadata: unknown,
  now: Date,
): Promise<RegisteredClient> {
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata))
    throw invalidMetadata("The registration request must be a JSON object");
  const body = metadata as Record<string, unknown>;
  const redirectUris = stringList(body.redirect_uris, "redirect_uris", []);
  if (redirectUris.length === 0) throw new OAuthError("invalid_redirect_uri", "redirect_uris is required");
  if (redirectUris.length > maxRedirectUris)
    throw new OAuthError("invalid_redirect_uri", `At most ${maxRedirectUris} redirect_uris`);
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem !== null) throw new OAuthError("invalid_redirect_uri", problem);
  }
  const grantTypes = stringList(body.grant_types, "grant_types", ["authorization_code", "refresh_token"]);
  const unsupportedGrant = grantTypes.find(
    (type) => type !== "authorization_code" && type !== "refresh_token",
  );
  if (unsupportedGrant !== undefined || !grantTypes.includes("authorization_code"))
    throw invalidMetadata("grant_types may hold only authorization_code (required) and refresh_token");
  const responseTypes = stringList(body.response_types, "response_types", ["code"]);
  if (responseTypes.some((type) => type !== "code"))
    throw invalidMetadata('response_types may hold only "code"');
  // RFC 7591 defaults to client_secret_basic; MCP clients are mostly public, so unset means "none".
  const method = body.token_endpoint_auth_method ?? "none";
  if (!tokenEndpointAuthMethods.includes(method as (typeof tokenEndpointAuthMethods)[number]))
    throw invalidMetadata(`token_endpoint_auth_method must be one of ${tokenEndpointAuthMethods.join(", ")}`);
  const name = body.client_name ?? "MCP client";
  if (typeof name !== "string" || name.trim() === "" || name.length > maxClientNameLength)
    throw invalidMetadata(`client_name must be 1–${maxClientNameLength} characters`);
  const secret = method === "none" ? null : randomSecret();
  const record: OAuthClientRecord = {
    id: randomSecret(18),
    name: name.trim(),
    redirectUris,
    // refresh_token is always allowed: every code exchange returns one.
    grantTypes: [...new Set([...grantTypes, "refresh_token"])],
    tokenEndpointAuthMethod: method as string,
    secretHash: secret === null ? null : await sha256Hex(secret),
    createdAt: now,
  };
  await repository.createClient(record);
  return { record, secret };
}

/** The client a token or revocation request authenticates as (RFC 6749 §2.3), or invalid_client. */
export async function authenticateOAuthClient(
  clients: Pick<OAuthRepository, "findClient">,
  credentials: { clientId: string | undefined; clientSecret: string | undefined },
): Promise<OAuthClientRecord> {
  const invalid = () => new OAuthError("invalid_client", "Unknown client, or its authentication failed");
  if (!credentials.clientId || credentials.clientId.length > 2_000) throw invalid();
  const client = await clients.findClient(credentials.clientId);
  if (!client) throw invalid();
  if (client.secretHash === null) {
    if (credentials.clientSecret !== undefined) throw invalid();
    return client;
  }
  if (credentials.clientSecret === undefined) throw invalid();
  if (!constantTimeEqual(client.secretHash, await sha256Hex(credentials.clientSecret))) throw invalid();
  return client;
}

/** The registration response (RFC 7591 §3.2.1). */
export function registrationResponse({ record, secret }: RegisteredClient) {
  return {
    client_id: record.id,
    client_id_issued_at: Math.floor(record.createdAt.getTime() / 1000),
    ...(secret === null ? {} : { client_secret: secret, client_secret_expires_at: 0 }),
    client_name: record.name,
    redirect_uris: record.redirectUris,
    grant_types: record.grantTypes,
    response_types: ["code"],
    token_endpoint_auth_method: record.tokenEndpointAuthMethod,
  };
}
