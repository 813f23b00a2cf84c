/**
 * API key format (docs/api.md#credentials): `cairn_` + 32 random base62 characters + 6 base62 characters
 * of the CRC32 of the random part. The checksum lets a mistyped or made-up key be refused before
 * any database lookup; only the SHA-256 digest is ever stored.
 */

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export const apiKeyPrefix = "cairn_";
const randomLength = 32;
const checksumLength = 6;
const keyPattern = /^cairn_[0-9A-Za-z]{38}$/;

const crcTable = (() => {
  const table = new Uint32Array(256);
  for (let index = 0; index < 256; index++) {
    let value = index;
    for (let bit = 0; bit < 8; bit++) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
    table[index] = value >>> 0;
  }
  return table;
})();

export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of new TextEncoder().encode(text)) crc = crcTable[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function toBase62(value: number, width: number): string {
  let text = "";
  let rest = value;
  for (let position = 0; position < width; position++) {
    text = alphabet[rest % 62] + text;
    rest = Math.floor(rest / 62);
  }
  return text;
}

function randomBase62(length: number): string {
  let text = "";
  const bytes = new Uint8Array(length * 2);
  while (text.length < length) {
    crypto.getRandomValues(bytes);
    // 248 = 4 × 62: rejecting bytes above it keeps every character equally likely.
    for (const byte of bytes) if (byte < 248 && text.length < length) text += alphabet[byte % 62];
  }
  return text;
}

export function generateApiKey(): { key: string; prefix: string } {
  const random = randomBase62(randomLength);
  return {
    key: `${apiKeyPrefix}${random}${toBase62(crc32(random), checksumLength)}`,
    prefix: displayPrefix(random),
  };
}

function displayPrefix(random: string): string {
  return `${apiKeyPrefix}${random.slice(0, 8)}`;
}

/** True when the key has the right shape and its checksum verifies. */
export function hasValidChecksum(key: string): boolean {
  if (!keyPattern.test(key)) return false;
  const random = key.slice(apiKeyPrefix.length, apiKeyPrefix.length + randomLength);
  return key.slice(apiKeyPrefix.length + randomLength) === toBase62(crc32(random), checksumLength);
}

/**
 * SHA-256 (hex). A short text (an API key, a memory's content) is hashed right here: WebCrypto's
 * hop to its thread pool costs 20–50 µs, ten times the hashing. A long one (an import's body)
 * goes to WebCrypto, which hashes it three times faster.
 */
export async function sha256Hex(text: string): Promise<string> {
  const bytes = encoder.encode(text);
  if (bytes.length <= inlineHashLimit) return bytesToHex(sha256(bytes));
  return bytesToHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

const encoder = new TextEncoder();
/** Bytes up to which hashing in JavaScript beats WebCrypto's round trip (measured: 64 KiB is 350 µs against 134 µs). */
const inlineHashLimit = 16 * 1024;

/** Compares two strings in time that depends only on their length. */
export function constantTimeEqual(left: string, right: string): boolean {
  if (left.length !== right.length) return false;
  let difference = 0;
  for (let index = 0; index < left.length; index++)
    difference |= left.charCodeAt(index) ^ right.charCodeAt(index);
  return difference === 0;
}
