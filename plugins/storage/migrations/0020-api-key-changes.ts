/**
 * Replicas keep active API keys in memory on PostgreSQL (plugins/storage/api-key-cache.ts): this
 * trigger tells them, on the `cairn_api_keys` channel, when a key stops being what they keep: it
 * is revoked, deleted (by hand, or with its account), or has its hash or account changed. The
 * notification goes out when the change commits. Recording a key's last use does not notify.
 * SQLite reads every key, so it needs nothing.
 */
import type { MigrationSource } from "./migration-source.ts";

export const apiKeyChanges: MigrationSource = {
  name: "0020-api-key-changes",
  sqlite: [],
  postgresql: [
    `create function cairn_api_key_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('cairn_api_keys', '');
  return null;
end;
$$`,
    `create trigger api_keys_changed after update on api_keys for each row
when (old.revoked_at is distinct from new.revoked_at or old.key_hash is distinct from new.key_hash or old.account_id is distinct from new.account_id)
execute function cairn_api_key_changed()`,
    // A statement deleting many keys (an account's, by cascade) notifies once: PostgreSQL folds
    // equal notifications of one transaction into one.
    "create trigger api_keys_deleted after delete on api_keys for each row execute function cairn_api_key_changed()",
  ],
};
