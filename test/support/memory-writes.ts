import { createHash } from "node:crypto";
import type { MemoryWrite } from "../../core/index.ts";

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
