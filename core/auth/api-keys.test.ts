import { describe, expect, it } from "vitest";
import { crc32, generateApiKey, hasValidChecksum, sha256Hex } from "./api-keys.ts";

describe("API key format", () => {
  it("is cairn_ + 32 random base62 + 6 base62 checksum, with an 8-character display prefix", () => {
    const { key, prefix } = generateApiKey();
    expect(key).toMatch(/^cairn_[0-9A-Za-z]{38}$/);
    expect(prefix).toBe(key.slice(0, 14));
    expect(hasValidChecksum(key)).toBe(true);
  });

  it("never repeats and uses the whole alphabet", () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateApiKey().key));
    expect(keys.size).toBe(2000);
    const characters = new Set([...keys].flatMap((key) => [...key.slice(6, 38)]));
    expect(characters.size).toBe(62);
  });

  it("refuses any single-character change, wrong lengths and other prefixes", () => {
    const { key } = generateApiKey();
    for (let position = 6; position < key.length; position++) {
      const replacement = key[position] === "a" ? "b" : "a";
      expect(hasValidChecksum(key.slice(0, position) + replacement + key.slice(position + 1))).toBe(false);
    }
    expect(hasValidChecksum(key.slice(0, -1))).toBe(false);
    expect(hasValidChecksum(`${key}0`)).toBe(false);
    expect(hasValidChecksum(key.replace("cairn_", "cairm_"))).toBe(false);
    expect(hasValidChecksum("")).toBe(false);
  });

  it("uses the standard CRC32 and SHA-256", async () => {
    expect(crc32("123456789")).toBe(0xcbf43926);
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
