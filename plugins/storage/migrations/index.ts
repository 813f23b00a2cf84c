/**
 * Migrations, in order. Each is written out for both dialects (SQLite has FTS5 where PostgreSQL
 * has GIN and pgvector), and turned into MikroORM migration classes for the dialect in use.
 */
import { Migration } from "@mikro-orm/migrations";
import { accountsAndKeys } from "./0001-accounts-and-keys.ts";
import { memories } from "./0002-memories.ts";
import { sandboxAccess } from "./0003-sandbox-access.ts";
import { idempotency } from "./0004-idempotency.ts";
import { memoryCounts } from "./0005-memory-counts.ts";
import { memoryPostings } from "./0006-memory-postings.ts";

export type Dialect = "sqlite" | "postgresql";

export interface MigrationSource {
  name: string;
  sqlite: string[];
  postgresql: string[];
}

export const migrationSources: MigrationSource[] = [
  accountsAndKeys,
  memories,
  sandboxAccess,
  idempotency,
  memoryCounts,
  memoryPostings,
];

export function migrationsFor(dialect: Dialect) {
  return migrationSources.map(
    (source) =>
      class extends Migration {
        override name = source.name;
        up() {
          for (const statement of source[dialect]) this.addSql(statement);
        }
      },
  );
}
