/**
 * Request headers the HTTP broker refuses from a caller (core/sandboxes/broker/BROKER.md), checked before
 * anything is sent. `Host` could make a shared CDN or proxy in front of an allowed host route the
 * request, and the secret in it, to another site; hop-by-hop headers and `Content-Length` are the
 * connection's, which the broker frames itself. Refused on every request, not only those carrying
 * a secret: simpler to state and to check, and no legitimate use needs them.
 */

import { hopByHopHeaders } from "../hop-by-hop.ts";

const refusedHeaders = new Map<string, string>([
  ["host", "the broker sets Host from the URL"],
  ["content-length", "the broker computes Content-Length from the body"],
  ...hopByHopHeaders.map((name): [string, string] => [
    name,
    "hop-by-hop headers belong to the broker's own connection",
  ]),
]);

// RFC 9110: a field name is a token; a field value is visible ASCII, space, tab and obs-text.
const tokenPattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const fieldValuePattern = /^[\t\x20-\x7e\x80-\xff]*$/;

export interface HeaderProblem {
  /** The header name as the caller spelled it (a name, never a value, so it may be shown). */
  name: string;
  message: string;
}

/** What is wrong with a caller's headers, one entry per refused header; empty when none is. */
export function headerProblems(headers: Record<string, string>): HeaderProblem[] {
  const problems: HeaderProblem[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const refused = refusedHeaders.get(name.toLowerCase());
    if (refused !== undefined) {
      problems.push({ name, message: `${name} may not be set: ${refused}` });
    } else if (!tokenPattern.test(name)) {
      problems.push({ name, message: "a header name must be an HTTP token (no spaces, colons or controls)" });
    } else if (!fieldValuePattern.test(value)) {
      problems.push({ name, message: invalidValueMessage });
    }
  }
  return problems;
}

export const invalidValueMessage =
  "a header value may not hold CR, LF, NUL, other control characters or characters beyond U+00FF";

/** Header names whose value, once secrets are substituted, is no longer a valid field value. */
export function invalidHeaderValues(headers: Record<string, string>): string[] {
  return Object.entries(headers)
    .filter(([, value]) => !fieldValuePattern.test(value))
    .map(([name]) => name);
}
