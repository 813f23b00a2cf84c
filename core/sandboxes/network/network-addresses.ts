/**
 * Host names and addresses for secrets' allowed_hosts and the broker's egress checks:
 * syntax of an allowed host (`invalid_allowed_host`) and whether a resolved address is private,
 * loopback, link-local, metadata or otherwise not the public internet (`unsafe_allowed_host`).
 * The DNS lookup itself belongs to a port; this only judges the answers.
 */

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
    if (parseIPv6(ipv6) === null) throw invalidHost(`${where} must not include a port`, index);
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

export function parseIPv4(text: string): number | null {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (match === null) return null;
  let value = 0;
  for (const part of match.slice(1)) {
    // Leading zeros mean octal to some resolvers: refuse the ambiguity.
    if ((part.length > 1 && part.startsWith("0")) || Number(part) > 255) return null;
    value = value * 256 + Number(part);
  }
  return value;
}

/** Parses IPv6 text (brackets, zone and a trailing dotted IPv4 allowed) into eight 16-bit groups. */
export function parseIPv6(text: string): number[] | null {
  let source = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const zone = source.indexOf("%");
  if (zone >= 0) source = source.slice(0, zone);
  const lastColon = source.lastIndexOf(":");
  if (lastColon < 0) return null;
  const tail = source.slice(lastColon + 1);
  if (tail.includes(".")) {
    const ipv4 = parseIPv4(tail);
    if (ipv4 === null) return null;
    source = `${source.slice(0, lastColon + 1)}${(ipv4 >>> 16).toString(16)}:${(ipv4 & 0xffff).toString(16)}`;
  }
  const halves = source.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] === "" ? [] : halves[0].split(":");
  const rest = halves.length === 2 && halves[1] !== "" ? halves[1].split(":") : [];
  if (halves.length === 1 ? head.length !== 8 : head.length + rest.length > 7) return null;
  const groups = [...head, ...Array(8 - head.length - rest.length).fill("0"), ...rest];
  if (!groups.every((group) => /^[0-9a-fA-F]{1,4}$/.test(group))) return null;
  return groups.map((group) => Number.parseInt(group, 16));
}

// [network, prefix length]: private, loopback, link-local (cloud metadata 169.254.169.254),
// carrier-grade NAT (100.100.100.200 metadata), documentation, benchmarking, multicast, reserved.
const unsafeIPv4Ranges: Array<[string, number]> = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

function isUnsafeIPv4(address: number): boolean {
  return unsafeIPv4Ranges.some(([network, prefix]) => {
    const size = 2 ** (32 - prefix);
    const start = parseIPv4(network)!;
    return address >= start && address < start + size;
  });
}

const embeddedIPv4 = (groups: number[], high: number): number => groups[high] * 65536 + groups[high + 1];

function isUnsafeIPv6(groups: number[]): boolean {
  const [first, second, third, fourth, fifth, sixth] = groups;
  const upperZero = first === 0 && second === 0 && third === 0 && fourth === 0;
  // ::/96 holds the unspecified and loopback addresses and the deprecated IPv4-compatible form.
  if (upperZero && fifth === 0 && sixth === 0) return true;
  // ::ffff:0:0/96 (IPv4-mapped) and ::ffff:0:0:0/96 (IPv4-translated) carry an IPv4 address.
  if (upperZero && ((fifth === 0 && sixth === 0xffff) || (fifth === 0xffff && sixth === 0))) {
    return isUnsafeIPv4(embeddedIPv4(groups, 6));
  }
  // 64:ff9b::/96 NAT64 carries an IPv4 address; 64:ff9b:1::/48 is for local use.
  if (first === 0x64 && second === 0xff9b) {
    return third !== 0 || fourth !== 0 || fifth !== 0 || sixth !== 0 || isUnsafeIPv4(embeddedIPv4(groups, 6));
  }
  if (first === 0x2002) return isUnsafeIPv4(embeddedIPv4(groups, 1)); // 6to4
  if ((first & 0xe000) !== 0x2000) return true; // outside global unicast 2000::/3: ULA, link-local, multicast, …
  if (first === 0x2001 && second < 0x200) return true; // 2001::/23 protocol assignments (Teredo, benchmarking)
  if (first === 0x2001 && second === 0xdb8) return true; // documentation
  if (first === 0x3fff && second < 0x1000) return true; // documentation 3fff::/20
  return false;
}

/**
 * True unless the address is a public unicast address. Text that is not a plain IPv4 or IPv6
 * address counts as unsafe, since nothing can be vouched for.
 */
export function isUnsafeAddress(ip: string): boolean {
  const ipv4 = parseIPv4(ip);
  if (ipv4 !== null) return isUnsafeIPv4(ipv4);
  const ipv6 = parseIPv6(ip);
  return ipv6 === null || isUnsafeIPv6(ipv6);
}
