/**
 * Plugins' key-value stores (docs/plugins.md#store): one row per (plugin, account, key), the
 * value as JSON text. Rows go with their account; a plugin that is removed leaves its rows until
 * an operator deletes them (`delete from plugin_store where plugin = '…'`).
 */
import type { MigrationSource } from "./migration-source.ts";

const table = (timestamp: string) =>
  `create table plugin_store (plugin varchar(32) not null, account_id varchar(36) not null references accounts (id) on delete cascade, item_key varchar(256) not null, value text not null, updated_at ${timestamp} not null, primary key (plugin, account_id, item_key))`;

export const pluginStore: MigrationSource = {
  name: "0012-plugin-store",
  sqlite: [table("datetime")],
  postgresql: [table("timestamptz")],
};
