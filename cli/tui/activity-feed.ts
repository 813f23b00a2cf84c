/**
 * One session's activity feed (docs/sandboxes.md#activity): the newest entries (time, kind and
 * operation, what, exit code, bytes), reloaded every 2 s while shown, so what an agent does in the
 * sandbox scrolls by as it happens.
 */
import type { ActivityEntry, CairnClient } from "cairn-client";
import { Box, Text, useInput } from "ink";
import React, { useEffect, useState } from "react";
import { describeError } from "./describe-error.ts";
import { formatBytes } from "./process-list.ts";

const h = React.createElement;
const refreshMs = 2_000;

export interface ActivityFeedProps {
  client: CairnClient;
  sessionId: string;
  active: boolean;
  height: number;
  onBack(): void;
}

function entryColor(entry: ActivityEntry): string | undefined {
  if (entry.exit_code === null) return undefined;
  return entry.exit_code === 0 ? "green" : "red";
}

export function ActivityFeed({ client, sessionId, active, height, onBack }: ActivityFeedProps) {
  const rows = Math.max(1, height - 3);
  const [entries, setEntries] = useState<ActivityEntry[]>([]);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!active) return;
    let stopped = false;
    const load = async () => {
      try {
        const page = await client.sandboxLog(sessionId, { limit: Math.min(200, rows) });
        if (stopped) return;
        setEntries(page.entries);
        setTotal(page.total);
        setError(null);
      } catch (failure) {
        if (!stopped) setError(describeError(failure));
      }
    };
    void load();
    const timer = setInterval(() => void load(), refreshMs);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [active, client, sessionId, rows]);

  useInput(
    (_input, key) => {
      if (key.escape || key.backspace || key.delete) onBack();
    },
    { isActive: active },
  );

  // Oldest at the top, newest at the bottom, as a log reads.
  const shown = [...entries].reverse().slice(-rows);
  return h(
    Box,
    { flexDirection: "column", paddingX: 1 },
    h(Text, { bold: true }, "Activity  ", h(Text, { dimColor: true }, `${total} recorded in this session`)),
    error ? h(Text, { color: "red", wrap: "truncate-end" }, error) : h(Text, { dimColor: true }, " "),
    shown.length === 0 ? h(Text, { dimColor: true }, "Nothing done in this session yet.") : null,
    ...shown.map((entry) =>
      h(
        Box,
        { key: String(entry.seq) },
        h(
          Box,
          { flexShrink: 0 },
          h(
            Text,
            null,
            `${entry.at.slice(11, 19)}  ${`${entry.kind}/${entry.operation}`.padEnd(18)} `,
            h(
              Text,
              { color: entryColor(entry) },
              (entry.exit_code === null ? "" : String(entry.exit_code)).padStart(4),
            ),
            ` ${(entry.bytes === null ? "" : formatBytes(entry.bytes)).padStart(9)}  `,
          ),
        ),
        h(Box, { flexGrow: 1, flexShrink: 1 }, h(Text, { wrap: "truncate-end" }, entry.subject)),
      ),
    ),
  );
}
