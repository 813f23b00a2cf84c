/**
 * Where the OAuth authorization server and the resource it protects (/mcp) live: under
 * SVC_PUBLIC_URL's origin when set, else the origin each request came to (right unless a proxy
 * in front changes the scheme or the host).
 */
import type { Config } from "../../core/index.ts";

export function publicOrigin(request: Request, config: Config): string {
  return new URL(config.SVC_PUBLIC_URL ?? request.url).origin;
}

export function oauthUrls(request: Request, config: Config) {
  const origin = publicOrigin(request, config);
  return {
    issuer: origin,
    /** The MCP resource (RFC 8707): the audience every access token is bound to. */
    resource: `${origin}/mcp`,
    /** RFC 9728 §3.1: the well-known path with the resource's path appended. */
    resourceMetadata: `${origin}/.well-known/oauth-protected-resource/mcp`,
    authorization: `${origin}/oauth/authorize`,
    token: `${origin}/oauth/token`,
    registration: `${origin}/oauth/register`,
    revocation: `${origin}/oauth/revoke`,
  };
}

/**
 * The challenge of a 401 at /mcp (RFC 6750 §3, RFC 9728 §5.1): where to find the resource's
 * metadata, and `invalid_token` when a credential was sent and refused.
 */
export function bearerChallenge(request: Request, config: Config, invalidToken: boolean): string {
  const metadata = oauthUrls(request, config).resourceMetadata;
  const error = invalidToken
    ? ', error="invalid_token", error_description="The access token is invalid, expired or revoked"'
    : "";
  return `Bearer resource_metadata="${metadata}", scope="mcp"${error}`;
}
