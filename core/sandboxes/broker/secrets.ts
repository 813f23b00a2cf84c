/**
 * Secrets for the HTTP broker (docs/sandboxes.md#http-broker-and-secrets): encryption at rest,
 * substitution of `{{secret:<name>}}` placeholders for allowed hosts only, and redaction of secret
 * values from what the broker returns. Web-standard only (WebCrypto, and @noble/hashes for the
 * keyed digest), so core runs on Node and Deno alike.
 */

import { hkdf } from "@noble/hashes/hkdf.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { ServiceError } from "../../errors.ts";

export { checkAllowedHostSyntax, isUnsafeAddress } from "../network/network-addresses.ts";
export { createRedactor, redactionMarker, redactSecrets } from "./secret-redaction.ts";

export interface SecretCipher {
  /** Encrypts a value as `v1.<nonce>.<ciphertext>` (base64url); `context` is bound as associated data. */
  encrypt(value: string, context?: string): Promise<string>;
  /** Decrypts what encrypt produced; throws when the key, the context or the text differ. */
  decrypt(stored: string, context?: string): Promise<string>;
  /** A keyed one-way digest (HMAC-SHA256, hex): equal inputs match, and without the key a guess cannot be checked. */
  digest(text: string): Promise<string>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });
const formatVersion = "v1";
// Fixed, public derivation inputs: they separate this use of SVC_SECRETS_KEY from any other.
const derivationSalt = encoder.encode("cairn/secrets/v1");
const derivationInfo = encoder.encode("cairn secret values aes-256-gcm");
const macDerivationInfo = encoder.encode("cairn keyed digests hmac-sha256");

/**
 * AES-256-GCM with a key derived from the configured SVC_SECRETS_KEY by HKDF-SHA256, and a
 * fresh random 12-byte nonce for every value.
 */
export function createSecretCipher(key: string): SecretCipher {
  if (key.length === 0) throw new Error("SVC_SECRETS_KEY must be set to encrypt secrets");
  let derived: Promise<CryptoKey> | null = null;
  const aesKey = (): Promise<CryptoKey> => {
    derived ??= crypto.subtle
      .importKey("raw", encoder.encode(key), "HKDF", false, ["deriveKey"])
      .then((material) =>
        crypto.subtle.deriveKey(
          { name: "HKDF", hash: "SHA-256", salt: derivationSalt, info: derivationInfo },
          material,
          { name: "AES-GCM", length: 256 },
          false,
          ["encrypt", "decrypt"],
        ),
      );
    return derived;
  };
  // HMAC in JavaScript, not WebCrypto: the texts are short (a memory's identity) and a WebCrypto
  // call costs a hop to its thread pool, ten times the hashing. Same HKDF inputs as before, so
  // digests stored earlier still match.
  let macKey: Uint8Array | null = null;
  const parameters = (nonce: Uint8Array<ArrayBuffer>, context: string | undefined): AesGcmParams =>
    context === undefined
      ? { name: "AES-GCM", iv: nonce }
      : { name: "AES-GCM", iv: nonce, additionalData: encoder.encode(context) };

  return {
    async digest(text) {
      macKey ??= hkdf(sha256, encoder.encode(key), derivationSalt, macDerivationInfo, 32);
      return bytesToHex(hmac(sha256, macKey, encoder.encode(text)));
    },
    async encrypt(value, context) {
      const nonce = crypto.getRandomValues(new Uint8Array(12));
      const ciphertext = await crypto.subtle.encrypt(
        parameters(nonce, context),
        await aesKey(),
        encoder.encode(value),
      );
      return `${formatVersion}.${toBase64Url(nonce)}.${toBase64Url(new Uint8Array(ciphertext))}`;
    },
    async decrypt(stored, context) {
      const [version, nonceText, ciphertextText, ...rest] = stored.split(".");
      if (
        version !== formatVersion ||
        nonceText === undefined ||
        ciphertextText === undefined ||
        rest.length > 0
      ) {
        throw new Error("stored secret has an unknown format");
      }
      const nonce = fromBase64Url(nonceText);
      if (nonce.byteLength !== 12) throw new Error("stored secret has an invalid nonce");
      try {
        const plaintext = await crypto.subtle.decrypt(
          parameters(nonce, context),
          await aesKey(),
          fromBase64Url(ciphertextText),
        );
        return decoder.decode(plaintext);
      } catch (cause) {
        throw new Error("secret could not be decrypted (wrong SVC_SECRETS_KEY or altered value)", { cause });
      }
    },
  };
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error("stored secret is not base64url");
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

export interface GrantedSecret {
  value: string;
  allowedHosts: string[];
}

export interface BrokerRequestTemplate {
  url: string;
  headers: Record<string, string>;
  body: string | null;
}

const placeholderPattern = /\{\{secret:([^{}]{1,200})\}\}/g;

/** Host as compared with allowed_hosts: lower case, without a trailing dot or IPv6 brackets kept. */
function normalizeHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, "");
}

/**
 * Replaces `{{secret:<name>}}` in header values and the body. Every placeholder must name a
 * secret granted to the session (else `egress_denied`, without saying whether the account has
 * such a secret) whose allowed_hosts contains the URL's host exactly, case-insensitively; no
 * wildcards. The URL itself is never substituted. Substitution is one pass, so a secret value
 * containing a placeholder is not expanded again. Returns the names used, for last_used_at.
 */
export function substituteSecrets(
  template: BrokerRequestTemplate,
  granted: ReadonlyMap<string, GrantedSecret>,
): BrokerRequestTemplate & { usedSecretNames: string[] } {
  let url: URL | null = null;
  try {
    url = new URL(template.url);
  } catch {
    url = null;
  }
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new ServiceError("validation_error", "Invalid request", {
      details: [{ type: "value_error", loc: ["url"], msg: "url must be an absolute http(s) URL" }],
    });
  }
  const host = normalizeHost(url.hostname);
  const used = new Set<string>();
  const substitute = (text: string): string =>
    text.replace(placeholderPattern, (_placeholder, name: string) => {
      const secret = granted.get(name);
      if (!secret) {
        throw new ServiceError(
          "egress_denied",
          `Secret ${JSON.stringify(name)} is not granted to this sandbox`,
        );
      }
      if (!secret.allowedHosts.some((allowed) => normalizeHost(allowed) === host)) {
        throw new ServiceError(
          "egress_denied",
          `Secret ${JSON.stringify(name)} may not be sent to ${host}; add it to the secret's allowed_hosts`,
        );
      }
      used.add(name);
      return secret.value;
    });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(template.headers)) headers[name] = substitute(value);
  const body = template.body === null ? null : substitute(template.body);
  return { url: template.url, headers, body, usedSecretNames: [...used] };
}
