/**
 * Password hashing with argon2id at the OWASP baseline (19 MiB memory, 2 passes, 1 lane).
 * @node-rs/argon2 is a prebuilt N-API addon, so it loads under Node and Deno alike.
 */
import { hash, verify } from "@node-rs/argon2";
import type { PasswordHasher } from "../../core/index.ts";

// The package declares its Algorithm as a const enum, which type stripping cannot inline.
const argon2id = 2;

export interface Argon2Settings {
  memoryCost?: number;
  timeCost?: number;
}

export function createArgon2Hasher(settings: Argon2Settings = {}): PasswordHasher {
  const options = {
    algorithm: argon2id,
    memoryCost: settings.memoryCost ?? 19_456,
    timeCost: settings.timeCost ?? 2,
    parallelism: 1,
  };
  return {
    hash: (password) => hash(password, options),
    async verify(stored, password) {
      try {
        return await verify(stored, password);
      } catch {
        return false;
      }
    },
  };
}
