/**
 * HTTP's hop-by-hop headers (RFC 9110 §7.6.1, and the `Proxy-Connection`, `Keep-Alive` and
 * `Trailers` spellings clients still send): they describe one connection, so a relay between two
 * (the egress broker, the preview route) never passes them on; it frames its own connection.
 */
export const hopByHopHeaders: readonly string[] = [
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "trailers",
  "transfer-encoding",
  "upgrade",
];
