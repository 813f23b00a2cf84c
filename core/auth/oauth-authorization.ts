/**
 * The authorization endpoint's rules (OAuth 2.1 §4.1.1, RFC 7636, RFC 8707): a known client and
 * one of its redirect URIs, matched exactly, before anything else; then response_type "code",
 * a PKCE S256 challenge (plain is refused), and the MCP resource as the `resource`. Errors found
 * before the redirect URI is trusted are shown to the user; later ones go back to the client.
 */
import type { OAuthClientRecord, OAuthRepository } from "../ports/oauth-storage.ts";
import { sha256Hex } from "./api-keys.ts";
import type { OAuthClientDirectory } from "./oauth-client-documents.ts";
import {
  authorizationCodeSeconds,
  codeChallengePattern,
  OAuthError,
  oauthScope,
  randomSecret,
} from "./oauth-values.ts";

export interface AuthorizationRequest {
  client: OAuthClientRecord;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  resource: string;
  scope: string;
}

export type AuthorizationCheck =
  | { ok: true; request: AuthorizationRequest }
  /** `redirectUri` null: the client or its redirect URI is not trusted, so the error is shown, not sent. */
  | { ok: false; error: OAuthError; redirectUri: string | null; state: string | undefined };

/** The parameters of an authorization request, from its query (GET) or the consent form (POST). */
export type AuthorizationParameters = Record<string, string | undefined>;

export async function checkAuthorizationRequest(
  clients: OAuthClientDirectory,
  parameters: AuthorizationParameters,
  mcpResource: string,
): Promise<AuthorizationCheck> {
  const state = parameters.state;
  const shown = (description: string): AuthorizationCheck => ({
    ok: false,
    error: new OAuthError("invalid_request", description),
    redirectUri: null,
    state,
  });
  const clientId = parameters.client_id;
  if (!clientId || clientId.length > 2_000) return shown("The request names no client (client_id).");
  let client: OAuthClientRecord | null;
  try {
    client = await clients.findClient(clientId);
  } catch (error) {
    // A URL client id whose metadata document is unusable: say why, to the user only.
    if (error instanceof OAuthError) return shown(`${error.message}.`);
    throw error;
  }
  if (!client)
    return shown(
      "This client is not registered with this server. Go back to the application and connect again.",
    );
  let redirectUri = parameters.redirect_uri;
  if (redirectUri === undefined) {
    if (client.redirectUris.length !== 1) return shown("The request names no redirect_uri.");
    redirectUri = client.redirectUris[0];
  }
  // Exact string comparison: no prefix, no normalisation, no loopback port wildcard.
  if (!client.redirectUris.includes(redirectUri))
    return shown("The redirect_uri is not one this client registered.");
  const sent = (error: string, description: string): AuthorizationCheck => ({
    ok: false,
    error: new OAuthError(error, description),
    redirectUri,
    state,
  });
  if (parameters.response_type !== "code")
    return sent("unsupported_response_type", 'Only response_type "code" is supported');
  const codeChallenge = parameters.code_challenge;
  if (codeChallenge === undefined) return sent("invalid_request", "PKCE is required: send code_challenge");
  if (parameters.code_challenge_method !== "S256")
    return sent("invalid_request", 'Only code_challenge_method "S256" is supported');
  if (!codeChallengePattern.test(codeChallenge))
    return sent("invalid_request", "code_challenge is not an S256 challenge");
  // RFC 8707: the token's audience. MCP clients send it; one that does not gets the MCP resource.
  const resource = parameters.resource ?? mcpResource;
  if (resource !== mcpResource)
    return sent("invalid_target", `This server issues tokens for ${mcpResource} only`);
  if (state !== undefined && state.length > 2_000) return sent("invalid_request", "state is too long");
  return { ok: true, request: { client, redirectUri, state, codeChallenge, resource, scope: oauthScope } };
}

/** A single-use code for the consenting account, valid for a minute; only its digest is stored. */
export async function issueAuthorizationCode(
  repository: OAuthRepository,
  request: AuthorizationRequest,
  accountId: string,
  now: Date,
): Promise<string> {
  const code = randomSecret();
  await repository.createCode(
    {
      codeHash: await sha256Hex(code),
      clientId: request.client.id,
      accountId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      resource: request.resource,
      scope: request.scope,
      expiresAt: new Date(now.getTime() + authorizationCodeSeconds * 1000),
    },
    now,
  );
  return code;
}

/** The redirect URI with the response's parameters added to its query (RFC 6749 §4.1.2). */
export function redirectWith(redirectUri: string, parameters: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(parameters))
    if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}
