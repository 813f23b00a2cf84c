/**
 * Migrations, in order. Each is written out for both dialects (where their SQL differs), and
 * turned into MikroORM migration classes for the dialect in use.
 */
import { Migration } from "@mikro-orm/migrations";
import { accountsAndKeys } from "./0001-accounts-and-keys.ts";
import { memories } from "./0002-memories.ts";
import { sandboxAccess } from "./0003-sandbox-access.ts";
import { idempotency } from "./0004-idempotency.ts";
import { memoryCounts } from "./0005-memory-counts.ts";
import { memoryPostings } from "./0006-memory-postings.ts";
import { dropOldSearchIndex } from "./0007-drop-old-search-index.ts";
import { memoryLinkJobs } from "./0008-memory-link-jobs.ts";
import { volumesAndMcpConnections } from "./0009-volumes-and-mcp-connections.ts";
import { sandboxImages } from "./0010-sandbox-images.ts";
import { memoryEmbeddings } from "./0011-memory-embeddings.ts";
import { pluginStore } from "./0012-plugin-store.ts";
import { pluginEvents } from "./0013-plugin-events.ts";
import { memoryPostingsCovering } from "./0014-memory-postings-covering.ts";
import { sandboxEndEvents } from "./0015-sandbox-end-events.ts";
import { memoryIndexVersions } from "./0016-memory-index-versions.ts";
import { memoryEmbeddingScopes } from "./0017-memory-embedding-scopes.ts";
import { memoryEmbeddingScopeIndex } from "./0018-memory-embedding-scope-index.ts";
import { memoryStemmedTerms } from "./0019-memory-stemmed-terms.ts";
import { apiKeyChanges } from "./0020-api-key-changes.ts";
import { memorySupersededByIndex } from "./0021-memory-superseded-by-index.ts";
import { memoryFoldedTerms } from "./0022-memory-folded-terms.ts";
import { memoryExportOrder } from "./0023-memory-export-order.ts";
import { oauth } from "./0024-oauth.ts";
import { snapshotsAndKeyRoles } from "./0025-snapshots-and-key-roles.ts";
import { previewLinks } from "./0026-preview-links.ts";
import { memorySessionContext } from "./0027-memory-session-context.ts";
import type { MigrationSource } from "./migration-source.ts";

export type Dialect = "sqlite" | "postgresql";

export type { MigrationSource } from "./migration-source.ts";

export const migrationSources: MigrationSource[] = [
  accountsAndKeys,
  memories,
  sandboxAccess,
  idempotency,
  memoryCounts,
  memoryPostings,
  dropOldSearchIndex,
  memoryLinkJobs,
  volumesAndMcpConnections,
  sandboxImages,
  memoryEmbeddings,
  pluginStore,
  pluginEvents,
  memoryPostingsCovering,
  sandboxEndEvents,
  memoryIndexVersions,
  memoryEmbeddingScopes,
  memoryEmbeddingScopeIndex,
  memoryStemmedTerms,
  apiKeyChanges,
  memorySupersededByIndex,
  memoryFoldedTerms,
  memoryExportOrder,
  oauth,
  snapshotsAndKeyRoles,
  previewLinks,
  memorySessionContext,
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
