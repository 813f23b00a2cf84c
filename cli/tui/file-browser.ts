/** Browsing one session's files: a directory listing to walk, and a scrollable view of one file. */
import { Box, Text, useInput } from "ink";
import React, { useState } from "react";
import type { useSessionFiles } from "./use-session-files.ts";
import { parentDirectory } from "./use-session-files.ts";
import { moveSelection, visibleWindow } from "./visible-window.ts";

const h = React.createElement;

export interface FileBrowserProps {
  sessionId: string;
  files: ReturnType<typeof useSessionFiles>;
  active: boolean;
  height: number;
  onBack(): void;
}

export function FileBrowser({ sessionId, files, active, height, onBack }: FileBrowserProps) {
  const { directory, entries, file } = files;
  // A cursor and a scroll position belong to the directory and the file they were set in.
  const [cursor, setCursor] = useState({ directory, index: 0 });
  const [scrolled, setScrolled] = useState<{ file: unknown; line: number }>({ file: null, line: 0 });
  const selected = cursor.directory === directory ? cursor.index : 0;
  const scroll = scrolled.file === file ? scrolled.line : 0;
  const setSelected = (next: (index: number) => number) => setCursor({ directory, index: next(selected) });
  const setScroll = (next: (line: number) => number) => setScrolled({ file, line: next(scroll) });
  const contentLines = file ? file.content.replace(/\n$/, "").split("\n") : [];
  const rows = Math.max(1, height - 3);
  useInput(
    (_input, key) => {
      if (file) {
        const lastStart = Math.max(0, contentLines.length - rows);
        if (key.upArrow) setScroll((line) => Math.max(0, line - 1));
        else if (key.downArrow) setScroll((line) => Math.min(lastStart, line + 1));
        else if (key.pageUp) setScroll((line) => Math.max(0, line - rows));
        else if (key.pageDown) setScroll((line) => Math.min(lastStart, line + rows));
        else if (key.escape || key.backspace || key.delete) files.closeFile();
        return;
      }
      const entry = entries[selected];
      if (key.upArrow) setSelected((index) => moveSelection(index, -1, entries.length));
      else if (key.downArrow) setSelected((index) => moveSelection(index, 1, entries.length));
      else if (key.return && entry) {
        if (entry.is_dir) void files.open(sessionId, entry.path);
        else void files.view(sessionId, entry.path);
      } else if (key.backspace || key.delete) void files.open(sessionId, parentDirectory(directory));
      else if (key.escape) onBack();
    },
    { isActive: active },
  );

  const status = files.error
    ? h(Text, { color: "red", wrap: "truncate-end" }, files.error)
    : h(Text, { dimColor: true }, files.loading ? "Loading…" : " ");
  if (file) {
    const shown = contentLines.slice(scroll, scroll + rows);
    return h(
      Box,
      { flexDirection: "column", paddingX: 1 },
      h(
        Text,
        { bold: true, wrap: "truncate-start" },
        `${file.path}  (lines ${contentLines.length ? scroll + 1 : 0}-${scroll + shown.length} of ${contentLines.length})`,
      ),
      status,
      ...shown.map((line, index) => h(Text, { key: `${scroll + index}`, wrap: "truncate-end" }, line || " ")),
    );
  }
  const window = visibleWindow(entries, selected, rows);
  return h(
    Box,
    { flexDirection: "column", paddingX: 1 },
    h(Text, { bold: true, wrap: "truncate-start" }, `Files in ${directory}`),
    status,
    entries.length === 0 && !files.loading ? h(Text, { dimColor: true }, "(empty directory)") : null,
    ...window.items.map((entry, offset) => {
      const isSelected = window.start + offset === selected;
      const name = entry.path.startsWith(directory) ? entry.path.slice(directory.length) : entry.path;
      return h(
        Box,
        { key: entry.path },
        h(
          Box,
          { flexGrow: 1 },
          h(
            Text,
            { inverse: isSelected, color: entry.is_dir ? "blue" : undefined, wrap: "truncate-end" },
            `${isSelected ? "›" : " "} ${name}`,
          ),
        ),
        h(Text, { dimColor: true }, entry.is_dir ? "" : `${entry.size} B`),
      );
    }),
  );
}
