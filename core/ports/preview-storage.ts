/**
 * Storage of sandbox preview links (docs/sandboxes.md#previews), shared by every replica on the
 * database: a link minted through one is served, listed and revoked through any other, and
 * outlives a restart. The token is kept only as its SHA-256 digest.
 */

export interface PreviewLinkRecord {
  /** The link's public id (`prv_…`), what list and revoke name. */
  tokenId: string;
  accountId: string;
  sessionId: string;
  port: number;
  createdAt: Date;
  expiresAt: Date;
}

export interface PreviewLinkRepository {
  /** Stores a new link under its token's digest. */
  create(tokenDigest: string, record: PreviewLinkRecord): Promise<void>;
  /** The link while it is unrevoked, unexpired at `now` and its sandbox active; else null. */
  findUsable(tokenDigest: string, now: Date): Promise<PreviewLinkRecord | null>;
  /** The unrevoked links of one sandbox of the account unexpired at `now`, oldest first. */
  list(accountId: string, sessionId: string, now: Date): Promise<PreviewLinkRecord[]>;
  /** Marks the link revoked; false when it is unknown, another account's, sandbox's or port's, or revoked already. */
  revoke(
    link: { accountId: string; sessionId: string; port: number; tokenId: string },
    now: Date,
  ): Promise<boolean>;
  /** Deletes every link of a sandbox (it ended). */
  deleteForSession(sessionId: string): Promise<void>;
  /** Deletes the links expired by `now`, revoked or not (housekeeping); returns how many. */
  purgeExpired(now: Date): Promise<number>;
}
