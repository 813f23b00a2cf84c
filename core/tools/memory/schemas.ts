/** Wire shapes of the memory operations (docs/api.md#memory). */
import { z } from "zod";
import type { MemoryRecord, RelationRecord } from "../../ports/memory-store.ts";

export { memoryKinds, relationTypes } from "../../memory/vocabulary.ts";

import { memoryKinds, relationTypes } from "../../memory/vocabulary.ts";
import type { MemoryInput } from "../../memory/write-memory.ts";

const metadataLimitBytes = 32 * 1024;

import { nulMessage, storableString, withoutNul } from "../text.ts";

export { storableString };

/**
 * Whether the calendar date at the start of an ISO value exists: Date.parse rolls 2024-02-30
 * over to March 1 instead of refusing it. Years start at 1000: the PostgreSQL driver reads
 * years below 100 back as 19xx or 20xx, and year 0 fails outright.
 */
function isCalendarDate(value: string): boolean {
  const [year, month, day] = value.slice(0, 10).split("-").map(Number);
  if (year < 1000 || month < 1 || month > 12) return false;
  // Day 0 of the next month is the last day of this one.
  return day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** An ISO-8601 date-time from year 1000 on; a value without an offset is read as UTC. */
export const dateTime = z
  .string()
  .max(64)
  .refine(
    (value) =>
      /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/i.test(value) &&
      isCalendarDate(value) &&
      !Number.isNaN(Date.parse(value)),
    {
      message: "Invalid ISO-8601 date-time (a real calendar date, year 1000 to 9999)",
    },
  )
  .transform(
    (value) => new Date(/[zZ]|[+-]\d{2}:?\d{2}$/.test(value) || !value.includes(":") ? value : `${value}Z`),
  );

// JSON.parse accepts thousands of nesting levels but JSON.stringify recurses and overflows the
// stack (a 500) a few thousand levels down; real metadata is nowhere near this deep.
const metadataMaxDepth = 64;

/** Why a metadata value cannot be stored (too deep, U+0000 in a key or string), or null. */
function metadataProblem(value: unknown): string | null {
  // Iterative, so the check itself cannot overflow the stack.
  const pending: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, depth } = next;
    if (typeof node === "string") {
      if (!withoutNul(node)) return `metadata ${nulMessage}`;
    } else if (node !== null && typeof node === "object") {
      if (depth > metadataMaxDepth) return `metadata must nest at most ${metadataMaxDepth} levels deep`;
      for (const [key, child] of Object.entries(node)) {
        if (!withoutNul(key)) return `metadata ${nulMessage}`;
        pending.push({ node: child, depth: depth + 1 });
      }
    }
  }
  return null;
}

export const metadata = z.record(z.string(), z.unknown()).superRefine((value, context) => {
  const problem = metadataProblem(value);
  if (problem !== null) context.addIssue({ code: "custom", message: problem });
  else if (new TextEncoder().encode(JSON.stringify(value)).length > metadataLimitBytes) {
    context.addIssue({ code: "custom", message: "metadata must encode to at most 32 KiB of compact JSON" });
  }
});

export const scope = storableString().min(1).max(128);

/** Descriptions of fields that several memory operations share. */
export const fieldDescriptions = {
  scope: "A project or user",
  scopeFilter: "Only this one (omitted: every scope)",
  metadata: "Any JSON object",
  sourceSessionId: "Its conversation",
  expiresAt: "ISO-8601 date-time it disappears at; null keeps it",
};

export const memoryCreateFields = {
  content: storableString()
    .min(1)
    .max(65_536)
    .refine((text) => text.trim().length > 0, "content must contain text, not only whitespace")
    .describe("One self-contained statement"),
  scope: scope.default("default").describe(fieldDescriptions.scope),
  kind: z.enum(memoryKinds).default("fact").describe("Static in the profile: fact, preference, instruction"),
  metadata: metadata.default({}).describe(fieldDescriptions.metadata),
  source_session_id: storableString()
    .max(36)
    .nullable()
    .default(null)
    .describe(fieldDescriptions.sourceSessionId),
  expires_at: dateTime.nullable().default(null).describe(fieldDescriptions.expiresAt),
  source_content: storableString()
    .max(65_536)
    .nullable()
    .default(null)
    .describe("The original text it was taken from"),
  document_date: dateTime
    .nullable()
    .default(null)
    .describe("ISO-8601 date the source was written; anchors relative dates"),
  event_dates: z
    .array(storableString().max(1000))
    .max(16)
    .default([])
    .describe("Dates of the events it mentions, free-form text"),
  importance: z
    .number()
    .min(0)
    .max(1)
    .default(0.5)
    .describe("From 0 to 1; higher ranks a little higher in recall"),
};

/** The fields of a memory as remember and import take them (the wire's snake_case). */
export type MemoryCreateFields = z.output<z.ZodObject<typeof memoryCreateFields>>;

/** Those fields as the write path takes them (core/memory/write-memory.ts). */
export function toMemoryInput(fields: MemoryCreateFields): MemoryInput {
  return {
    content: fields.content,
    scope: fields.scope,
    kind: fields.kind,
    metadata: fields.metadata,
    sourceSessionId: fields.source_session_id,
    expiresAt: fields.expires_at,
    sourceContent: fields.source_content,
    documentDate: fields.document_date,
    eventDates: fields.event_dates,
    importance: fields.importance,
  };
}

export const memoryCreateRequest = z.object(memoryCreateFields);
export type MemoryCreateInput = z.output<typeof memoryCreateRequest>;

const isoOrNull = z.string().nullable();

export const memoryOut = z.object({
  id: z.string(),
  scope: z.string(),
  kind: z.enum(memoryKinds),
  content: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  source_session_id: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  expires_at: isoOrNull,
  source_content: z.string().nullable(),
  document_date: isoOrNull,
  event_dates: z.array(z.string()),
  importance: z.number(),
  access_count: z.number().int(),
  last_accessed_at: isoOrNull,
  superseded_at: isoOrNull,
  superseded_by_id: z.string().nullable(),
});

export const relationOut = z.object({
  source_memory_id: z.string(),
  target_memory_id: z.string(),
  relation_type: z.enum(relationTypes),
  confidence: z.number(),
  created_at: z.string(),
});

const iso = (date: Date | null) => date?.toISOString() ?? null;

export function toMemoryOut(record: MemoryRecord): z.input<typeof memoryOut> {
  return {
    id: record.id,
    scope: record.scope,
    kind: record.kind,
    content: record.content,
    metadata: record.metadata,
    source_session_id: record.sourceSessionId,
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
    expires_at: iso(record.expiresAt),
    source_content: record.sourceContent,
    document_date: iso(record.documentDate),
    event_dates: record.eventDates,
    importance: record.importance,
    access_count: record.accessCount,
    last_accessed_at: iso(record.lastAccessedAt),
    superseded_at: iso(record.supersededAt),
    superseded_by_id: record.supersededById,
  };
}

export function toRelationOut(relation: RelationRecord): z.input<typeof relationOut> {
  return {
    source_memory_id: relation.sourceMemoryId,
    target_memory_id: relation.targetMemoryId,
    relation_type: relation.relationType,
    confidence: relation.confidence,
    created_at: relation.createdAt.toISOString(),
  };
}

/** An integer field with bounds and a default (a limit, an offset). */
export const boundedInteger = (minimum: number, maximum: number, fallback: number) =>
  z.number().int().min(minimum).max(maximum).default(fallback);

export { resourceId as memoryIdParameter } from "../resource-id.ts";
