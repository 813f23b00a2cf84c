/**
 * Host names and addresses for secrets' allowed_hosts and the broker's egress checks:
 * syntax of an allowed host (`invalid_allowed_host`) and whether a resolved address is private,
 * loopback, link-local, metadata or otherwise not the public internet (`unsafe_allowed_host`).
 * The DNS lookup itself belongs to a port; this only judges the answers.
 */

import ipaddr from "ipaddr.js";
import { ServiceError } from "../../errors.ts";

const invalidHost = (message: string, index?: number): ServiceError =>
  new ServiceError("invalid_allowed_host", message, index === undefined ? {} : { details: { index } });

const labelPattern = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/**
 * Validates one allowed_hosts entry and returns it normalised: lower case, punycode for
 * international names, no trailing dot, IPv6 in brackets. Refuses empty entries and anything
 * with a scheme, path, port, user, query, wildcard or spaces: entries are exact host names.
 */
export function checkAllowedHostSyntax(host: string, index?: number): string {
  const where = index === undefined ? "allowed_hosts entry" : `allowed_hosts[${index}]`;
  if (host.trim().length === 0) throw invalidHost(`${where} is empty`, index);
  if (/[\s/\\?#@*]/.test(host) || host.includes("://")) {
    throw invalidHost(
      `${where} must be a bare host name like api.example.com (no scheme, path, port, wildcard or spaces)`,
      index,
    );
  }
  const bracketed = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : null;
  const ipv6 = bracketed ?? (host.includes(":") ? host : null);
  if (ipv6 !== null) {
    const address = parseAddress(ipv6);
    if (address?.kind() !== "ipv6" || ipv6.includes("%")) {
      throw invalidHost(`${where} must be an IPv6 address without a port or zone`, index);
    }
    return new URL(`http://[${ipv6}]/`).hostname;
  }
  let hostname: string;
  try {
    hostname = new URL(`http://${host}/`).hostname;
  } catch {
    throw invalidHost(`${where} is not a valid host name`, index);
  }
  hostname = hostname.replace(/\.$/, "");
  if (hostname.length > 253 || !hostname.split(".").every((label) => labelPattern.test(label))) {
    throw invalidHost(`${where} is not a valid host name`, index);
  }
  return hostname;
}

/**
 * Parses an IP literal: four-part decimal IPv4 (no octal-looking leading zeros, no short forms
 * such as `127.1`: resolvers disagree about them) or IPv6 (brackets and a zone allowed). Null for
 * anything else.
 */
export function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  let source = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const zone = source.indexOf("%");
  if (zone >= 0) source = source.slice(0, zone);
  if (!source.includes(":")) return null;
  // The URL parser's canonical form first: ipaddr.js reads `::1.2.3.4` (IPv4-compatible) as
  // `::ffff:1.2.3.4` (IPv4-mapped).
  let canonical: string;
  try {
    canonical = new URL(`http://[${source}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  return ipaddr.IPv6.isValid(canonical) ? ipaddr.IPv6.parse(canonical) : null;
}

const cidr = (range: string) => ipaddr.IPv6.parseCIDR(range);

/** IPv6 prefixes that carry an IPv4 address, with the index of its high 16-bit part. */
const embeddingIPv4: Array<[[ipaddr.IPv6, number], number]> = [
  [cidr("::ffff:0:0/96"), 6], // IPv4-mapped
  [cidr("::ffff:0:0:0/96"), 6], // IPv4-translated
  [cidr("64:ff9b::/96"), 6], // NAT64
  [cidr("2002::/16"), 1], // 6to4
];
const globalUnicast = cidr("2000::/3");

/**
 * Public means ipaddr.js's `unicast` (every special-purpose range of the IANA registries is named
 * otherwise: private, loopback, link-local with the 169.254.169.254 metadata address, carrier-grade
 * NAT with 100.100.100.200, documentation, benchmarking, multicast, reserved …); for IPv6 also
 * inside global unicast 2000::/3, and an embedded IPv4 address is judged as itself.
 */
function isPublic(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (address.kind() === "ipv4") return address.range() === "unicast";
  const ipv6 = address as ipaddr.IPv6;
  const embedding = embeddingIPv4.find(([range]) => ipv6.match(range));
  if (embedding) {
    const [high, low] = ipv6.parts.slice(embedding[1], embedding[1] + 2);
    return isPublic(new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]));
  }
  return ipv6.range() === "unicast" && ipv6.match(globalUnicast);
}

/**
 * True unless the address is a public unicast address. Text that is not a plain IPv4 or IPv6
 * address counts as unsafe, since nothing can be vouched for.
 */
export function isUnsafeAddress(ip: string): boolean {
  const address = parseAddress(ip);
  return address === null || !isPublic(address);
}
