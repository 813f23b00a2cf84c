/**
 * The fixed parts of Cairn's OAuth 2.1 authorization server for /mcp
 * (docs/mcp.md#connecting-as-a-remote-connector-oauth): lifetimes, token formats, the one scope,
 * PKCE S256, and the error an OAuth endpoint answers in RFC 6749's own form (not Cairn's envelope).
 */
import { sha256 } from "@noble/hashes/sha2.js";

/** Access tokens: opaque, stored as SHA-256 digests like API keys; `cairn_` so secret scanners see them. */
export const oauthAccessTokenPrefix = "cairn_oat_";
export const oauthRefreshTokenPrefix = "cairn_ort_";
export const oauthScope = "mcp";
export const authorizationCodeSeconds = 60;
export const accessTokenSeconds = 3_600;
export const refreshTokenSeconds = 30 * 24 * 3_600;

/**
 * An OAuth error (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 8707): `error` is the registered code a
 * client acts on, `description` a sentence for a person. The endpoint that catches it says how it
 * travels (a JSON body, or the redirect URI's query).
 */
export class OAuthError extends Error {
  readonly error: string;
  constructor(error: string, description: string) {
    super(description);
    this.name = "OAuthError";
    this.error = error;
  }
}

function base64Url(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** 32 random bytes, base64url: a code, a token's secret part, a client secret, a CSRF token. */
export function randomSecret(bytes = 32): string {
  return base64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** PKCE S256 (RFC 7636 §4.2): BASE64URL(SHA256(ASCII(code_verifier))). */
export function pkceChallenge(verifier: string): string {
  return base64Url(sha256(new TextEncoder().encode(verifier)));
}

/** RFC 7636 §4.1: 43–128 characters of [A-Z a-z 0-9 - . _ ~]. */
export const codeVerifierPattern = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge is a base64url SHA-256: 43 characters. */
export const codeChallengePattern = /^[A-Za-z0-9\-_]{43}$/;

export const isOAuthAccessToken = (credential: string) => credential.startsWith(oauthAccessTokenPrefix);
