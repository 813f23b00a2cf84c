/**
 * MikroORM entities (defineEntity, no decorators, so Node and Deno run them as plain .ts): the
 * sandbox sessions, the one table family read and written through the entity manager (README.md
 * says why). Column names are snake_case; the schema itself comes from the migrations in
 * migrations/.
 */
import { defineEntity, p } from "@mikro-orm/core";

export const SandboxSessionEntity = defineEntity({
  name: "SandboxSession",
  tableName: "sandbox_sessions",
  properties: {
    id: p.string().length(36).primary(),
    accountId: p.string().length(36).index(),
    status: p.string().length(16),
    label: p.string().length(200).nullable(),
    size: p.string().length(16),
    storageGb: p.double().nullable(),
    runtime: p.string().length(16),
    podName: p.string().length(253).nullable(),
    connectNote: p.text().nullable(),
    imageId: p.string().length(36).nullable(),
    grants: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
    destroyedAt: p.datetime().nullable(),
    endedReason: p.string().length(16).nullable(),
    endEventPending: p.boolean().default(false),
  },
});

export const entities = [SandboxSessionEntity];
