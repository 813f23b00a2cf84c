/**
 * Storage of Cairn's OAuth 2.1 authorization server for /mcp (docs/mcp.md#connecting-as-a-remote-connector-oauth):
 * registered clients, authorization codes, grants (a token family: what the account's key list
 * shows and revokes) and the tokens of each grant. Codes and tokens are kept as SHA-256 digests.
 */

export interface OAuthClientRecord {
  /** The `client_id` (a random string, not a UUID: clients show it in URLs). */
  id: string;
  name: string;
  redirectUris: string[];
  grantTypes: string[];
  /** "none" (a public client with PKCE) or "client_secret_post". */
  tokenEndpointAuthMethod: string;
  /** SHA-256 of the client secret; null for a public client. */
  secretHash: string | null;
  createdAt: Date;
}

export interface OAuthCodeRecord {
  codeHash: string;
  clientId: string;
  accountId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scope: string;
  expiresAt: Date;
}

export interface OAuthGrantRecord {
  /** Shown in the key list as the key's id; revoking it revokes every token of the family. */
  id: string;
  accountId: string;
  clientId: string;
  clientName: string;
  resource: string;
  scope: string;
  createdAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

export interface OAuthTokenRecord {
  tokenHash: string;
  grantId: string;
  kind: "access" | "refresh";
  expiresAt: Date;
}

/** What a code's single use finds: the code, and the grant it was already exchanged for (a replay). */
export type OAuthCodeUse =
  | { state: "unknown" }
  | { state: "used"; grantId: string | null }
  | { state: "fresh"; code: OAuthCodeRecord };

/** What a refresh token's single use finds. */
export type OAuthRefreshUse =
  | { state: "unknown" }
  /** Presented before: the family it belongs to (now revoked, as reuse detection asks). */
  | { state: "reused"; grant: OAuthGrantRecord }
  | { state: "fresh"; grant: OAuthGrantRecord; token: OAuthTokenRecord };

export interface OAuthRepository {
  createClient(record: OAuthClientRecord): Promise<void>;
  findClient(id: string): Promise<OAuthClientRecord | null>;
  createCode(record: OAuthCodeRecord, now: Date): Promise<void>;
  /**
   * Marks a code used, once, recording the grant its exchange will open (`grantId`): the first
   * caller gets the code ("fresh"), every later one "used" with that grant id, so a replay can
   * revoke it. Expiry is the caller's check.
   */
  useCode(codeHash: string, grantId: string, now: Date): Promise<OAuthCodeUse>;
  /** A new grant with its first access and refresh tokens, in one transaction. */
  createGrant(grant: OAuthGrantRecord, tokens: OAuthTokenRecord[]): Promise<void>;
  /**
   * Marks a refresh token used, once. A token presented a second time revokes its whole grant in
   * the same call and reports "reused".
   */
  useRefreshToken(tokenHash: string, now: Date): Promise<OAuthRefreshUse>;
  /** Adds tokens to an active grant (a refresh's new pair); false when the grant was revoked meanwhile. */
  addTokens(grantId: string, tokens: OAuthTokenRecord[]): Promise<boolean>;
  /** The active grant an unexpired access token belongs to, or null. */
  findAccessGrant(tokenHash: string, now: Date): Promise<OAuthGrantRecord | null>;
  /** The grant any of its tokens (access or refresh) belongs to, revoked or not. */
  findGrantByToken(tokenHash: string): Promise<OAuthGrantRecord | null>;
  /** Newest first, revoked grants included. */
  listGrants(accountId: string): Promise<OAuthGrantRecord[]>;
  /** False when unknown, another account's (when accountId is given) or already revoked. */
  revokeGrant(accountId: string | null, grantId: string, now: Date): Promise<boolean>;
  touchGrant(grantId: string, now: Date): Promise<void>;
  /** Drops expired codes and the expired tokens of every grant (housekeeping). */
  purgeExpired(now: Date): Promise<void>;
}
