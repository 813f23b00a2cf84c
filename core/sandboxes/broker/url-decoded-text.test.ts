import { describe, expect, it } from "vitest";
import { bytesBefore, cutEscapeLength, decodeUrlText, textSpan, urlDecodedForm } from "./url-decoded-text.ts";

const binary = (bytes: Uint8Array) => Array.from(bytes, (byte) => String.fromCharCode(byte)).join("");

describe("decodeUrlText", () => {
  it("gives TextEncoder's bytes for every kind of character, and each escape's byte in either case", () => {
    const characters = `aé✓😀${String.fromCodePoint(0x7ff, 0x800, 0xffff, 0x10ffff)}\ud800x\udc00`;
    const decoded = decodeUrlText(`${characters}%41%e2%9C%93%zz%4`);
    // A lone surrogate is U+FFFD, as TextEncoder writes it; `%zz` and a final `%4` are not escapes.
    expect(decoded.bytes).toBe(binary(new TextEncoder().encode(`${characters}A✓%zz%4`)));
  });

  it("reads a space, `%20` and `+` as one byte, in the text and in a value", () => {
    expect(decodeUrlText("a b%20c+d%2Be").bytes).toBe("a+b+c+d+e");
    expect(urlDecodedForm("a b+c")).toBe("a+b+c");
    // ASCII without escapes takes the short way and reads the same.
    expect(decodeUrlText("a b+c")).toEqual({ bytes: "a+b+c", starts: null, textLength: 5 });
  });

  it("maps bytes back to the characters and escapes that gave them", () => {
    const text = "x✓%E2%9C%93y";
    const decoded = decodeUrlText(text);
    // ✓ as a character (bytes 1–3) and as three escapes (bytes 4–6).
    expect(textSpan(decoded, 1, 4)).toEqual([1, 2]);
    expect(textSpan(decoded, 4, 7)).toEqual([2, 11]);
    expect(textSpan(decoded, 7, 8)).toEqual([11, 12]);
    expect(bytesBefore(decoded, 2)).toBe(4);
    expect(bytesBefore(decoded, text.length)).toBe(8);
  });

  it("finds an escape cut short at the end", () => {
    expect(["a%", "a%2", "a%2F", "a%zz", "a"].map((text) => cutEscapeLength(text, text.length))).toEqual([
      1, 2, 0, 0, 0,
    ]);
  });
});
