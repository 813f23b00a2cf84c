import { createHash } from "node:crypto";
import type { MemoryWrite } from "../../core/index.ts";
import type { MemoryInput } from "../../core/memory/write-memory.ts";

/** A plain fact to hand the memory store directly (`insertMany`), updated at `updatedAt`. */
export function memoryWrite(
  content: string,
  scope = "default",
  updatedAt = new Date(),
  expiresAt: Date | null = null,
): MemoryWrite {
  return {
    scope,
    kind: "fact",
    content,
    contentHash: createHash("sha256").update(content).digest("hex"),
    metadata: {},
    sourceSessionId: null,
    sourceContent: null,
    documentDate: null,
    eventDates: [],
    importance: 0.5,
    expiresAt,
    createdAt: updatedAt,
    updatedAt,
  };
}

/** A plain fact as the write path takes it (`prepareMemories`), every optional field empty. */
export function factInput(content: string, scope = "default"): MemoryInput {
  return {
    content,
    scope,
    kind: "fact",
    metadata: {},
    sourceSessionId: null,
    expiresAt: null,
    sourceContent: null,
    documentDate: null,
    eventDates: [],
    importance: 0.5,
  };
}
