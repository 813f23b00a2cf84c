/**
 * The key bindings of every screen and mode, written once: the help bar shows them, and the app
 * reads from here whether a mode takes every key (typing, confirming) so global keys stay out of it.
 */
import { Box, Text } from "ink";
import React from "react";

const h = React.createElement;

export type Hint = readonly [key: string, action: string];

interface ModeKeys {
  /** True when the mode takes every key (a text field or a y/n question): no global keys then. */
  captured: boolean;
  hints: readonly Hint[];
}

export const modeKeys = {
  "account:view": { captured: false, hints: [["r", "reload"]] },
  "sessions:list": {
    captured: false,
    hints: [
      ["c", "new"],
      ["enter", "run"],
      ["t", "terminal"],
      ["f", "files"],
      ["p", "procs"],
      ["d", "destroy"],
      // `↑↓` move, `r` reloads and `a` shows the activity feed; their hints no longer fit 80
      // columns beside the global keys (docs/tui.md lists them).
    ],
  },
  // While the terminal opens; once it has the screen, Ink takes no keys at all until it returns.
  "sessions:terminal": {
    captured: true,
    hints: [["ctrl-]", "back to the TUI"]],
  },
  "sessions:command": {
    captured: true,
    hints: [
      ["enter", "run"],
      ["esc", "cancel"],
    ],
  },
  "sessions:confirm-destroy": {
    captured: true,
    hints: [
      ["y", "destroy"],
      ["n/esc", "keep"],
    ],
  },
  "sessions:files": {
    captured: false,
    hints: [
      ["↑↓", "move"],
      ["enter", "open"],
      ["backspace", "up"],
      ["esc", "back"],
    ],
  },
  "sessions:file": {
    captured: false,
    hints: [
      ["↑↓", "scroll"],
      ["esc", "back"],
    ],
  },
  "sessions:processes": {
    captured: false,
    hints: [
      ["↑↓", "move"],
      ["enter", "follow"],
      ["r", "reload"],
      ["esc", "back"],
    ],
  },
  "sessions:process": {
    captured: false,
    hints: [["esc", "back to the list"]],
  },
  "sessions:activity": {
    captured: false,
    hints: [["esc", "back to the list"]],
  },
  "memory:browse": {
    captured: false,
    hints: [
      ["/", "search"],
      ["↑↓", "move"],
      ["enter", "view"],
      ["f", "forget"],
      ["r", "reload"],
    ],
  },
  "memory:search": {
    captured: true,
    hints: [
      ["type", "search"],
      ["↑↓", "move"],
      ["enter", "view"],
      ["esc", "done"],
    ],
  },
  "memory:detail": {
    captured: false,
    hints: [
      ["f", "forget"],
      ["esc", "back"],
    ],
  },
  "memory:confirm-forget": {
    captured: true,
    hints: [
      ["y", "forget"],
      ["n/esc", "keep"],
    ],
  },
} as const satisfies Record<string, ModeKeys>;

export type Mode = keyof typeof modeKeys;

export const globalHints: readonly Hint[] = [
  ["tab", "next"],
  ["q", "quit"],
];

export function isCaptured(mode: Mode): boolean {
  return modeKeys[mode].captured;
}

/** The hints of a mode, then the global ones when they apply, as many as fit in `width` columns. */
export function hintsThatFit(mode: Mode, width: number): Hint[] {
  const all = [...modeKeys[mode].hints, ...(isCaptured(mode) ? [] : globalHints)];
  const shown: Hint[] = [];
  let used = 0;
  for (const hint of all) {
    const cells = hint[0].length + hint[1].length + 3;
    if (used + cells > width) break;
    shown.push(hint);
    used += cells;
  }
  return shown;
}

export function HelpBar({ mode, width }: { mode: Mode; width: number }) {
  return h(
    Box,
    { width, height: 1, overflow: "hidden" },
    ...hintsThatFit(mode, width - 1).map(([key, action]) =>
      h(
        Box,
        { key, marginRight: 2 },
        h(Text, { bold: true, color: "cyan" }, key),
        h(Text, { dimColor: true }, ` ${action}`),
      ),
    ),
  );
}
