/**
 * The account `cairn mcp serve --data-dir` acts as: one per data directory, found by a fixed email
 * and created on first use. It needs no key and no password: stdio is served to whoever started
 * the process, and the operating-system user who can do that on the directory can already read
 * its database. A fixed email (not the host's name) keeps the account when the machine is renamed
 * or the directory moves; `.invalid` is reserved (RFC 2606), so no one receives mail there.
 */
import { type Platform, type Principal, ServiceError } from "../core/index.ts";

export const localAccountEmail = "local@cairn.invalid";

/** The principal in-process calls run as; `credentialId` names the in-process caller, as the plugin host's does. */
export async function localPrincipal(platform: Platform): Promise<Principal> {
  const { accounts } = platform.storage;
  let account = await accounts.findByEmail(localAccountEmail);
  if (!account) {
    // No one signs in as it: its password is random and kept nowhere.
    const password = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
    const passwordHash = await platform.passwords.hash(password);
    try {
      account = await accounts.create({ email: localAccountEmail, passwordHash, now: platform.clock.now() });
      platform.logger.info({ accountId: account.id }, "local account created");
    } catch (error) {
      // Another process sharing the database (PostgreSQL) created it first.
      if (!(error instanceof ServiceError && error.code === "email_taken")) throw error;
      account = await accounts.findByEmail(localAccountEmail);
      if (!account) throw error;
    }
  }
  return { kind: "api_key", accountId: account.id, credentialId: "stdio" };
}
