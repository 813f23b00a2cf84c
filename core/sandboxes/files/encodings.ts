/**
 * The two encodings of file content on the JSON routes (docs/sandboxes.md#bytes): "utf-8", text
 * as it is, and "base64", a file's exact bytes. Web-standard only (atob, btoa, TextDecoder), as
 * all of core is; strict both ways, so no byte is ever replaced or guessed.
 */
import { ServiceError } from "../../errors.ts";
import { invalidField } from "./file-entries.ts";

export const fileEncodings = ["utf-8", "base64"] as const;
export type FileEncoding = (typeof fileEncodings)[number];

/** The length of the base64 text of `bytes` bytes (with padding). */
export const base64Length = (bytes: number): number => Math.ceil(bytes / 3) * 4;

// Standard alphabet, padded or not; ASCII whitespace (line-wrapped `base64` output) is ignored.
const base64Text = /^[A-Za-z0-9+/]*={0,2}$/;
const whitespace = /[\t\n\f\r ]+/g;

/** Decodes base64 content; anything but the standard alphabet is 422 on `field`. */
export function decodeBase64(text: string, field: string): Uint8Array {
  const compact = text.replace(whitespace, "");
  if (!base64Text.test(compact) || compact.length % 4 === 1) {
    throw invalidField(
      field,
      `${field} is not valid base64 (the standard alphabet A-Z a-z 0-9 + /, with optional = padding)`,
    );
  }
  let binary: string;
  try {
    binary = atob(compact);
  } catch {
    throw invalidField(field, `${field} is not valid base64`);
  }
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/** Base64 of the bytes, built in slices so no call gets millions of arguments. */
export function encodeBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  const slice = 0x8000;
  for (let offset = 0; offset < bytes.length; offset += slice) {
    parts.push(String.fromCharCode(...bytes.subarray(offset, offset + slice)));
  }
  return btoa(parts.join(""));
}

const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The bytes as text, or 422 `file_not_utf8` naming the file: a text read of a binary file is
 * refused, never shown with U+FFFD in place of its bytes.
 */
export function decodeUtf8(bytes: Uint8Array, path: string): string {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    throw new ServiceError(
      "file_not_utf8",
      `${path} is not UTF-8 text; view it with encoding "base64" or download it from the raw route`,
      { details: { path } },
    );
  }
}
