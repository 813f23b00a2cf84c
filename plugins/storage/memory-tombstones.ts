/** Digests of forgotten memories' identities, which an import checks so it does not bring them back. */
import type { MemoryStore } from "../../core/index.ts";
import type { MemoryContext } from "./memory-context.ts";
import { list, sql } from "./sql-statement.ts";

type TombstoneMethods = Pick<MemoryStore, "addTombstone" | "clearTombstones" | "tombstoned">;

export function createTombstoneMethods({ run, time }: MemoryContext): TombstoneMethods {
  return {
    async addTombstone(accountId, digest, at) {
      await run(
        sql`insert into memory_tombstones (account_id, identity_digest, forgotten_at) values (${accountId}, ${digest}, ${time(at)}) on conflict (account_id, identity_digest) do nothing`,
      );
    },

    async clearTombstones(accountId, digests) {
      if (digests.length === 0) return;
      await run(
        sql`delete from memory_tombstones where account_id = ${accountId} and identity_digest in (${list(digests)})`,
      );
    },

    async tombstoned(accountId, digests) {
      if (digests.length === 0) return new Set();
      const rows = await run<{ identity_digest: string }>(
        sql`select identity_digest from memory_tombstones where account_id = ${accountId} and identity_digest in (${list(digests)})`,
      );
      return new Set(rows.map((row) => row.identity_digest));
    },
  };
}
