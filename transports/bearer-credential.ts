/**
 * The credential of an `Authorization: Bearer <credential>` header (scheme case-insensitive), for
 * REST and MCP over HTTP. Core takes the bare credential; a missing or malformed header is no
 * credential, which core refuses as `missing_credentials` on routes that need one.
 */
export function bearerCredential(authorization: string | null | undefined): string | null {
  const match = authorization?.match(/^bearer[ \t]+([^\s]+)[ \t]*$/i);
  return match ? match[1] : null;
}
