/**
 * The token endpoint's grants (OAuth 2.1 §4.1.3, §4.3), revocation (RFC 7009), and the access
 * token as a credential at /mcp. A code exchange opens a grant, a token family the account's key
 * list shows; each refresh rotates the refresh token, and a rotated one presented again revokes
 * the family. Access tokens are opaque, live an hour, and are good only for the resource they
 * were issued for.
 */
import { ServiceError } from "../errors.ts";
import { authenticate, type Principal } from "../invoke.ts";
import type { PlatformServices } from "../platform-services.ts";
import type { Logger } from "../ports/logger.ts";
import type { OAuthClientRecord, OAuthRepository, OAuthTokenRecord } from "../ports/oauth-storage.ts";
import { constantTimeEqual, sha256Hex } from "./api-keys.ts";
import {
  accessTokenSeconds,
  codeVerifierPattern,
  isOAuthAccessToken,
  OAuthError,
  oauthAccessTokenPrefix,
  oauthRefreshTokenPrefix,
  pkceChallenge,
  randomSecret,
  refreshTokenSeconds,
} from "./oauth-values.ts";

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

const invalidGrant = (description: string) => new OAuthError("invalid_grant", description);

async function newTokenPair(grantId: string, scope: string, now: Date) {
  const access = `${oauthAccessTokenPrefix}${randomSecret()}`;
  const refresh = `${oauthRefreshTokenPrefix}${randomSecret()}`;
  const records: OAuthTokenRecord[] = [
    {
      tokenHash: await sha256Hex(access),
      grantId,
      kind: "access",
      expiresAt: new Date(now.getTime() + accessTokenSeconds * 1000),
    },
    {
      tokenHash: await sha256Hex(refresh),
      grantId,
      kind: "refresh",
      expiresAt: new Date(now.getTime() + refreshTokenSeconds * 1000),
    },
  ];
  const response: TokenResponse = {
    access_token: access,
    token_type: "Bearer",
    expires_in: accessTokenSeconds,
    refresh_token: refresh,
    scope,
  };
  return { records, response };
}

/** `grant_type=authorization_code`: the code, its PKCE verifier, redirect URI, client and resource. */
export async function exchangeAuthorizationCode(
  repository: OAuthRepository,
  client: OAuthClientRecord,
  parameters: Record<string, string | undefined>,
  now: Date,
): Promise<TokenResponse> {
  const { code, code_verifier: verifier, redirect_uri: redirectUri, resource } = parameters;
  if (!code) throw new OAuthError("invalid_request", "code is required");
  if (!verifier) throw new OAuthError("invalid_request", "code_verifier is required (PKCE)");
  // The grant's id is recorded with the code's use, so a replay racing this exchange revokes it.
  const grantId = crypto.randomUUID();
  const use = await repository.useCode(await sha256Hex(code), grantId, now);
  if (use.state === "used") {
    // OAuth 2.1 §4.1.3: a code used twice revokes what the first use issued.
    if (use.grantId !== null) await repository.revokeGrant(null, use.grantId, now);
    throw invalidGrant("The authorization code was already used");
  }
  if (use.state === "unknown") throw invalidGrant("Unknown authorization code");
  const stored = use.code;
  if (stored.expiresAt.getTime() <= now.getTime()) throw invalidGrant("The authorization code has expired");
  if (stored.clientId !== client.id)
    throw invalidGrant("The authorization code was issued to another client");
  // Given, it must be the very URI of the authorization request; omitted, the client has only one.
  if (redirectUri !== undefined ? redirectUri !== stored.redirectUri : client.redirectUris.length !== 1)
    throw invalidGrant("redirect_uri does not match the authorization request");
  if (resource !== undefined && resource !== stored.resource)
    throw new OAuthError("invalid_target", "resource does not match the authorization request");
  if (
    !codeVerifierPattern.test(verifier) ||
    !constantTimeEqual(pkceChallenge(verifier), stored.codeChallenge)
  )
    throw invalidGrant("code_verifier does not match the code_challenge");
  const { records, response } = await newTokenPair(grantId, stored.scope, now);
  await repository.createGrant(
    {
      id: grantId,
      accountId: stored.accountId,
      clientId: client.id,
      clientName: client.name,
      resource: stored.resource,
      scope: stored.scope,
      createdAt: now,
      revokedAt: null,
      lastUsedAt: null,
    },
    records,
  );
  return response;
}

/** `grant_type=refresh_token`: rotates the refresh token; a reused one revokes the family. */
export async function refreshOAuthTokens(
  repository: OAuthRepository,
  client: OAuthClientRecord,
  parameters: Record<string, string | undefined>,
  now: Date,
  logger: Logger,
): Promise<TokenResponse> {
  const token = parameters.refresh_token;
  if (!token) throw new OAuthError("invalid_request", "refresh_token is required");
  const use = await repository.useRefreshToken(await sha256Hex(token), now);
  if (use.state === "unknown") throw invalidGrant("Unknown refresh token");
  if (use.state === "reused") {
    logger.warn({ grantId: use.grant.id }, "an OAuth refresh token was used twice: its grant is revoked");
    throw invalidGrant("The refresh token was already used; every token of its grant is revoked");
  }
  const { grant, token: stored } = use;
  if (grant.clientId !== client.id) throw invalidGrant("The refresh token was issued to another client");
  if (grant.revokedAt !== null) throw invalidGrant("The grant was revoked");
  if (stored.expiresAt.getTime() <= now.getTime()) throw invalidGrant("The refresh token has expired");
  if (parameters.resource !== undefined && parameters.resource !== grant.resource)
    throw new OAuthError("invalid_target", "resource does not match the grant");
  const { records, response } = await newTokenPair(grant.id, grant.scope, now);
  if (!(await repository.addTokens(grant.id, records))) throw invalidGrant("The grant was revoked");
  return response;
}

/**
 * RFC 7009: revokes the grant of an access or refresh token of this client. An unknown token, or
 * another client's, is answered as success too (§2.2), so a token's existence is not disclosed.
 */
export async function revokeOAuthToken(
  repository: OAuthRepository,
  client: OAuthClientRecord,
  token: string | undefined,
  now: Date,
): Promise<void> {
  if (!token) throw new OAuthError("invalid_request", "token is required");
  const grant = await repository.findGrantByToken(await sha256Hex(token));
  if (grant && grant.clientId === client.id) await repository.revokeGrant(null, grant.id, now);
}

const lastUsedIntervalMilliseconds = 60_000;

/**
 * The account an OAuth access token acts for, at the resource `resource` (the /mcp URL it is
 * presented to): as an API key does, with the grant's id as the credential's id. Unknown,
 * expired, revoked or issued for another resource is `invalid_token`.
 */
export async function authenticateOAuthAccessToken(
  services: { storage: { oauth: OAuthRepository }; logger: Logger },
  token: string,
  resource: string,
  now: Date,
): Promise<Principal> {
  const grant = await services.storage.oauth.findAccessGrant(await sha256Hex(token), now);
  if (!grant || grant.resource !== resource)
    throw new ServiceError("invalid_token", "Invalid, expired or revoked OAuth access token");
  if (now.getTime() - (grant.lastUsedAt?.getTime() ?? 0) >= lastUsedIntervalMilliseconds)
    services.storage.oauth
      .touchGrant(grant.id, now)
      .catch((error: unknown) =>
        services.logger.warn({ err: error }, "an OAuth grant's last use was not recorded"),
      );
  return { kind: "api_key", accountId: grant.accountId, credentialId: grant.id };
}

/**
 * The credential of a request to /mcp: an API key as everywhere, or, while
 * SVC_MCP_OAUTH_ENABLED is on, an OAuth access token issued for `resource`.
 */
export async function authenticateMcpCredential(
  platform: PlatformServices,
  credential: string | null,
  resource: string,
  now: Date,
): Promise<Principal> {
  if (credential !== null && isOAuthAccessToken(credential)) {
    if (!platform.config.SVC_MCP_OAUTH_ENABLED)
      throw new ServiceError("invalid_token", "OAuth access tokens are not accepted: OAuth is turned off");
    return authenticateOAuthAccessToken(platform, credential, resource, now);
  }
  return (await authenticate(platform, "api_key", credential, now)) as Principal;
}
