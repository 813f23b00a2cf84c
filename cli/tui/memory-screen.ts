/**
 * The memory screen: a search box that searches as you type, the memories found, one memory with
 * its relations, and forgetting one after a y/n question.
 */
import { Box, Text, useInput } from "ink";
import React, { useEffect, useState } from "react";
import { fieldChoices } from "../schemas.ts";
import type { Mode } from "./help-bar.ts";
import { MemoryDetailView } from "./memory-detail.ts";
import { type ScreenProps, useReportMode, useScreenMode } from "./screen-props.ts";
import { editLine, TextField } from "./text-input.ts";
import { useMemory } from "./use-memory.ts";
import { moveSelection, visibleWindow } from "./visible-window.ts";

/** The kind column: a space, the longest kind ("instruction"), and a space before the text. */
const kindWidth = Math.max(...(fieldChoices("remember", "kind") ?? []).map((kind) => kind.length)) + 2;

const h = React.createElement;

type MemoryMode = "browse" | "search" | "detail" | "confirm-forget";

/** A memory's text on one row of a list: its line breaks and runs of spaces become single spaces. */
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

const toMemoryMode = (mode: MemoryMode): Mode => `memory:${mode}`;

export function MemoryScreen({ client, active, isShown, width, height, onModeChange }: ScreenProps) {
  const memory = useMemory(client, active);
  const { results, detail } = memory;
  const [mode, setMode, modeRef] = useScreenMode<MemoryMode>("browse", toMemoryMode, onModeChange);
  const [selected, setSelected] = useState(0);
  useReportMode(active, `memory:${mode}`, onModeChange);
  const highlighted = results[selected];
  // The memory a forget question is about: the one shown in full, else the highlighted one.
  const target = detail?.memory ?? highlighted;

  useEffect(() => {
    setSelected((index) => Math.min(index, Math.max(0, results.length - 1)));
  }, [results]);

  const openHighlighted = () => {
    if (!highlighted) return;
    setMode("browse");
    void memory.open(highlighted.id).then((opened) => {
      if (opened) setMode("detail");
    });
  };

  useInput((input, key) => {
    if (!isShown()) return;
    const current = modeRef.current;
    if (current === "confirm-forget") {
      if (input === "y" && target) void memory.forget(target.id);
      if (input === "y") setMode("browse");
      else if (input === "n" || key.escape) setMode(detail ? "detail" : "browse");
      return;
    }
    if (current === "detail") {
      if (input === "f") setMode("confirm-forget");
      else if (key.escape || key.backspace || key.delete) {
        memory.close();
        setMode("browse");
      }
      return;
    }
    // browse and search share the list keys; in search the rest goes to the search field.
    if (key.upArrow) setSelected((index) => moveSelection(index, -1, results.length));
    else if (key.downArrow) setSelected((index) => moveSelection(index, 1, results.length));
    else if (current === "search") {
      const edit = editLine(memory.queryRef.current, input, key);
      if (edit?.kind === "change") {
        memory.setQuery(edit.value);
        setSelected(0);
      } else if (edit?.kind === "submit") openHighlighted();
      else if (edit?.kind === "cancel") setMode("browse");
    } else if (input === "/") setMode("search");
    else if (key.return) openHighlighted();
    else if (input === "f" && highlighted) setMode("confirm-forget");
    else if (input === "r") memory.refresh();
  });

  const status = memory.error
    ? h(Text, { color: "red", wrap: "truncate-end" }, memory.error)
    : mode === "confirm-forget" && target
      ? h(
          Text,
          { color: "red", bold: true, wrap: "truncate-end" },
          `Forget "${oneLine(target.content)}"? (y/n)`,
        )
      : h(
          Text,
          { dimColor: true },
          memory.searching
            ? "Searching…"
            : memory.query.trim()
              ? `${results.length} found`
              : `${results.length} most recent`,
        );

  const searchBox = h(
    Text,
    null,
    h(Text, { color: mode === "search" ? "cyan" : undefined, bold: true }, "Search: "),
    h(TextField, {
      value: memory.query,
      focused: active && mode === "search",
      placeholder: "press / to search",
    }),
  );

  if (detail && (mode === "detail" || mode === "confirm-forget")) {
    return h(
      Box,
      { flexDirection: "column", paddingX: 1, width },
      h(Text, { bold: true }, "Memory"),
      memory.error || mode === "confirm-forget" ? status : h(Text, null, " "),
      h(MemoryDetailView, { detail, width: width - 2, height: height - 2 }),
    );
  }

  const listRows = Math.max(1, height - 3);
  const window = visibleWindow(results, selected, listRows);
  return h(
    Box,
    { flexDirection: "column", paddingX: 1, width },
    searchBox,
    status,
    results.length === 0 && !memory.searching ? h(Text, { dimColor: true }, "No memories.") : null,
    ...window.items.map((item, offset) => {
      const isSelected = window.start + offset === selected;
      return h(
        Box,
        { key: item.id },
        h(Text, { inverse: isSelected }, isSelected ? "›" : " "),
        h(Box, { width: kindWidth, flexShrink: 0 }, h(Text, { color: "magenta" }, ` ${item.kind}`)),
        h(
          Box,
          { flexGrow: 1 },
          h(
            Text,
            { inverse: isSelected, wrap: "truncate-end" },
            // Memories from every scope are listed; the default one goes unnamed.
            `${item.scope === "default" ? "" : `[${item.scope}] `}${oneLine(item.content)}`,
          ),
        ),
        item.score === undefined
          ? null
          : h(Box, { flexShrink: 0 }, h(Text, { dimColor: true }, ` ${item.score.toFixed(2)}`)),
      );
    }),
  );
}
