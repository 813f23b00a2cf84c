/**
 * One session's background processes: a list (id, status, exit code, output size, command)
 * reloaded every 2 s while shown, and one process followed live through its output stream.
 */
import { Box, Text, useInput } from "ink";
import React, { useEffect, useState } from "react";
import type { ProcessInfo, useSessionProcesses } from "./use-session-processes.ts";
import { moveSelection, visibleWindow } from "./visible-window.ts";

const h = React.createElement;

const refreshMs = 2_000;

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** `proc_` and the first 8 of its 32 hexadecimal digits: enough to tell a sandbox's few apart. */
const shortId = (processId: string) => processId.slice(0, 13);

function statusColor(process: ProcessInfo): string | undefined {
  if (process.status === "running") return "yellow";
  return process.exit_code === 0 ? "green" : "red";
}

export interface ProcessListProps {
  sessionId: string;
  processes: ReturnType<typeof useSessionProcesses>;
  active: boolean;
  height: number;
  onBack(): void;
}

export function ProcessList({ sessionId, processes, active, height, onBack }: ProcessListProps) {
  const { followed, refresh } = processes;
  const [selected, setSelected] = useState(0);
  const list = processes.processesOf(sessionId);
  const rows = Math.max(1, height - 3);

  // Processes start and end without us: reload while the list is shown.
  useEffect(() => {
    if (!active || followed) return;
    void refresh(sessionId);
    const timer = setInterval(() => void refresh(sessionId), refreshMs);
    return () => clearInterval(timer);
  }, [active, followed, sessionId, refresh]);

  useEffect(() => {
    if (selected >= list.length) setSelected(Math.max(0, list.length - 1));
  }, [list, selected]);

  useInput(
    (input, key) => {
      if (followed) {
        if (key.escape || key.backspace || key.delete) processes.unfollow();
        return;
      }
      const process = list[selected];
      if (key.upArrow) setSelected((index) => moveSelection(index, -1, list.length));
      else if (key.downArrow) setSelected((index) => moveSelection(index, 1, list.length));
      else if (key.return && process) void processes.follow(sessionId, process);
      else if (input === "r") void refresh(sessionId);
      else if (key.escape) onBack();
    },
    { isActive: active },
  );

  const status = processes.error
    ? h(Text, { color: "red", wrap: "truncate-end" }, processes.error)
    : h(Text, { dimColor: true }, processes.loading && list.length === 0 ? "Loading…" : " ");

  if (followed) {
    const { process, output, exit } = followed;
    const ending = exit
      ? h(
          Text,
          { color: exit.exit_code === 0 ? "green" : "red" },
          `${exit.status} · exit ${exit.exit_code ?? "-"}`,
        )
      : h(Text, { color: "yellow" }, "running…");
    const notes = [
      followed.truncated ? h(Text, { key: "truncated", dimColor: true }, "(older output dropped)") : null,
      followed.error ? h(Text, { key: "error", color: "red", wrap: "truncate-end" }, followed.error) : null,
    ].filter(Boolean);
    const shown = output.lines.slice(-Math.max(1, rows - notes.length));
    return h(
      Box,
      { flexDirection: "column", paddingX: 1 },
      h(
        Box,
        null,
        h(Box, { flexShrink: 1 }, h(Text, { bold: true, wrap: "truncate-end" }, `$ ${process.command}`)),
        h(Box, { flexShrink: 0, marginLeft: 2 }, ending),
      ),
      h(Text, { dimColor: true, wrap: "truncate-end" }, process.process_id),
      ...notes,
      ...shown.map((line, index) =>
        h(
          Text,
          { key: String(index), color: line.fromStderr ? "red" : undefined, wrap: "truncate-end" },
          line.text || " ",
        ),
      ),
    );
  }

  const window = visibleWindow(list, selected, rows);
  return h(
    Box,
    { flexDirection: "column", paddingX: 1 },
    h(Text, { bold: true }, "Processes  ", h(Text, { dimColor: true }, `${list.length} in this session`)),
    status,
    list.length === 0 && !processes.loading
      ? h(Text, { dimColor: true }, "No background processes yet (cairn start …).")
      : null,
    ...window.items.map((process, offset) => {
      const isSelected = window.start + offset === selected;
      return h(
        Box,
        { key: process.process_id },
        // The columns keep their width; the command takes what is left, cut at its end.
        h(
          Box,
          { flexShrink: 0 },
          h(
            Text,
            { inverse: isSelected },
            `${isSelected ? "›" : " "} ${shortId(process.process_id)}  `,
            h(Text, { color: statusColor(process) }, process.status.padEnd(9)),
            ` ${(process.exit_code === null ? "-" : String(process.exit_code)).padStart(4)}  ${formatBytes(process.output_bytes).padStart(9)}  `,
          ),
        ),
        h(Box, { flexGrow: 1, flexShrink: 1 }, h(Text, { wrap: "truncate-end" }, process.command)),
      );
    }),
  );
}
