/**
 * The last command run in a session: the command, how it ended, and the tail of its output that
 * fits, drawn while the command runs as its output streams in.
 */
import { Box, Text } from "ink";
import React from "react";
import type { OutputLine } from "./use-session-processes.ts";
import type { CommandRun } from "./use-sessions.ts";

const h = React.createElement;

/** The output's lines as they came, keeping the last `rows` of them (the end of a long output matters most). */
export function outputTail(run: CommandRun, rows: number): OutputLine[] {
  return rows > 0 ? run.output.lines.slice(-rows) : [];
}

function ending(run: CommandRun): React.ReactNode {
  if (run.running) return h(Text, { color: "yellow" }, "running…");
  if (run.error) return h(Text, { color: "red" }, "failed");
  if (!run.result) return null;
  const { exit_code, duration_ms, timed_out, truncated } = run.result;
  const notes = [timed_out ? "timed out" : null, truncated ? "output truncated" : null].filter(Boolean);
  return h(
    Text,
    { color: exit_code === 0 ? "green" : "red" },
    `exit ${exit_code} · ${duration_ms} ms${notes.length ? ` · ${notes.join(", ")}` : ""}`,
  );
}

export function CommandOutput({ run, rows }: { run: CommandRun | undefined; rows: number }) {
  if (!run) return h(Text, { dimColor: true }, "No command run in this session yet.");
  const lines = outputTail(run, rows - 1);
  return h(
    Box,
    { flexDirection: "column" },
    h(
      Box,
      null,
      h(Box, { flexShrink: 1 }, h(Text, { bold: true, wrap: "truncate-end" }, `$ ${run.command}`)),
      h(Box, { flexShrink: 0, marginLeft: 2 }, ending(run)),
    ),
    run.error ? h(Text, { color: "red" }, run.error) : null,
    ...lines.map((line, index) =>
      h(
        Text,
        { key: String(index), color: line.fromStderr ? "red" : undefined, wrap: "truncate-end" },
        line.text || " ",
      ),
    ),
  );
}
