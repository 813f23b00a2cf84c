/** One memory in full: its content, its facts, and the memories it relates to. */
import { Box, Text } from "ink";
import React from "react";
import type { MemoryDetail } from "./use-memory.ts";

const h = React.createElement;

/** The text cut to what fills at most `rows` rows of `width` columns once wrapped, ending in "…" when cut. */
export function clip(text: string, width: number, rows: number): string {
  const columns = Math.max(1, width);
  const kept: string[] = [];
  let used = 0;
  for (const line of text.split("\n")) {
    const lineRows = Math.max(1, Math.ceil(line.length / columns));
    if (used + lineRows > rows) {
      const room = (rows - used) * columns;
      if (room > 0) kept.push(line.slice(0, room - 1));
      return `${kept.join("\n")}…`;
    }
    kept.push(line);
    used += lineRows;
  }
  return text;
}

export function MemoryDetailView({
  detail,
  width,
  height,
}: {
  detail: MemoryDetail;
  width: number;
  height: number;
}) {
  const { memory, related } = detail;
  const facts = [
    `id ${memory.id}`,
    `kind ${memory.kind} · scope ${memory.scope} · importance ${memory.importance}`,
    `created ${memory.created_at} · updated ${memory.updated_at}`,
    memory.superseded_at ? `superseded ${memory.superseded_at} by ${memory.superseded_by_id}` : null,
  ].filter((line): line is string => line !== null);
  // The content wraps inside its box; a long one is cut so the facts and some relations stay in view.
  const relationRows = Math.min(Math.max(1, related.length), 5);
  const contentLines = Math.max(1, height - facts.length - relationRows - 4);
  return h(
    Box,
    { flexDirection: "column" },
    h(
      Box,
      { borderStyle: "round", borderColor: "cyan", paddingX: 1 },
      h(Text, null, clip(memory.content, width - 4, contentLines)),
    ),
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
