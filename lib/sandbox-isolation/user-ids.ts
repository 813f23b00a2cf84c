/**
 * Host uids jails run as: each sandbox session and each image build takes one of its own from a
 * range, so no jail can signal, trace or read another's processes or files.
 */
export interface UserIdRange {
  first: number;
  count: number;
}

/** The sandboxes' default range (SVC_SANDBOX_UID_RANGE); image builds take the range after it. */
export const defaultUserIds: UserIdRange = { first: 2_000_000, count: 65_536 };
