/** One memory in full: its content, its facts, and the memories it relates to. */
import { Box, Text } from "ink";
import React from "react";
import type { MemoryDetail } from "./use-memory.ts";

const h = React.createElement;

export function MemoryDetailView({ detail, height }: { detail: MemoryDetail; height: number }) {
  const { memory, related } = detail;
  const facts = [
    `id ${memory.id}`,
    `kind ${memory.kind} · scope ${memory.scope} · importance ${memory.importance}`,
    `created ${memory.created_at} · updated ${memory.updated_at}`,
    memory.superseded_at ? `superseded ${memory.superseded_at} by ${memory.superseded_by_id}` : null,
  ].filter((line): line is string => line !== null);
  // The content may wrap; the relations get what is left below it, one line each.
  const relationRows = Math.max(1, height - facts.length - 6);
  return h(
    Box,
    { flexDirection: "column" },
    h(Box, { borderStyle: "round", borderColor: "cyan", paddingX: 1 }, h(Text, null, memory.content)),
    ...facts.map((line) => h(Text, { key: line, dimColor: true, wrap: "truncate-end" }, line)),
    h(Text, { bold: true }, `Relations (${related.length})`),
    related.length === 0 ? h(Text, { dimColor: true }, "none") : null,
    ...related
      .slice(0, relationRows)
      .map((relation) =>
        h(
          Text,
          { key: `${relation.direction}-${relation.otherId}`, wrap: "truncate-end" },
          h(
            Text,
            { color: "magenta" },
            `${relation.direction === "to" ? "→" : "←"} ${relation.relationType} `,
          ),
          h(Text, { dimColor: true }, `${relation.confidence.toFixed(2)} `),
          relation.otherContent ?? relation.otherId,
        ),
      ),
  );
}
