/** Accounts, API keys and sandbox sessions (the usage figures read the latter from day one). */
import type { MigrationSource } from "./migration-source.ts";

export const accountsAndKeys: MigrationSource = {
  name: "0001-accounts-and-keys",
  sqlite: [
    "create table accounts (id text not null primary key, email text not null, password_hash text not null, created_at datetime not null)",
    "create unique index accounts_email_unique on accounts (email)",
    "create table api_keys (id text not null primary key, account_id text not null references accounts (id) on delete cascade, name text not null, prefix text not null, key_hash text not null, created_at datetime not null, revoked_at datetime null, last_used_at datetime null)",
    "create index api_keys_account_id_index on api_keys (account_id)",
    "create unique index api_keys_key_hash_unique on api_keys (key_hash)",
    "create table sandbox_sessions (id text not null primary key, account_id text not null references accounts (id) on delete cascade, status text not null, label text null, size text not null, storage_gb double null, runtime text not null, pod_name text null, connect_note text null, image_id text null, grants json not null, created_at datetime not null, expires_at datetime not null, destroyed_at datetime null, ended_reason text null)",
    "create index sandbox_sessions_account_status_index on sandbox_sessions (account_id, status)",
    "create index sandbox_sessions_status_expires_index on sandbox_sessions (status, expires_at)",
  ],
  postgresql: [
    'create table "accounts" ("id" varchar(36) not null primary key, "email" varchar(320) not null, "password_hash" text not null, "created_at" timestamptz not null)',
    'alter table "accounts" add constraint "accounts_email_unique" unique ("email")',
    'create table "api_keys" ("id" varchar(36) not null primary key, "account_id" varchar(36) not null references "accounts" ("id") on delete cascade, "name" varchar(200) not null, "prefix" varchar(32) not null, "key_hash" varchar(64) not null, "created_at" timestamptz not null, "revoked_at" timestamptz null, "last_used_at" timestamptz null)',
    'create index "api_keys_account_id_index" on "api_keys" ("account_id")',
    'alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash")',
    'create table "sandbox_sessions" ("id" varchar(36) not null primary key, "account_id" varchar(36) not null references "accounts" ("id") on delete cascade, "status" varchar(16) not null, "label" varchar(200) null, "size" varchar(16) not null, "storage_gb" double precision null, "runtime" varchar(16) not null, "pod_name" varchar(253) null, "connect_note" text null, "image_id" varchar(36) null, "grants" jsonb not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "destroyed_at" timestamptz null, "ended_reason" varchar(16) null)',
    'create index "sandbox_sessions_account_status_index" on "sandbox_sessions" ("account_id", "status")',
    'create index "sandbox_sessions_status_expires_index" on "sandbox_sessions" ("status", "expires_at")',
    'create table "rate_limit_buckets" ("key" varchar(300) not null primary key, "tokens" double precision not null, "updated_at" bigint not null)',
    // One call refills and takes a token under the row lock, so replicas sharing a bucket never race.
    `create function cairn_take_token(bucket_key text, capacity double precision, now_ms bigint)
      returns table (remaining_tokens double precision, is_allowed boolean) language plpgsql as $$
      declare level double precision;
      begin
        insert into rate_limit_buckets (key, tokens, updated_at) values (bucket_key, capacity, now_ms)
          on conflict (key) do nothing;
        select least(capacity, bucket.tokens + greatest(0, now_ms - bucket.updated_at) * capacity / 60000.0)
          into level from rate_limit_buckets bucket where bucket.key = bucket_key for update;
        is_allowed := level >= 1;
        remaining_tokens := case when is_allowed then level - 1 else level end;
        update rate_limit_buckets set tokens = remaining_tokens, updated_at = greatest(updated_at, now_ms)
          where key = bucket_key;
        return next;
      end $$`,
  ],
};
