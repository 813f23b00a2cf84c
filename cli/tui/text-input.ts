/**
 * A one-line text field: `editLine` applies one key to its value (typing, backspace, ctrl-u,
 * Enter to submit, Esc to cancel), and `TextField` draws it. The screen that owns the field feeds
 * it keys from its own key handler, so no key is lost while the field is being shown.
 */
import type { Key } from "ink";
import { Text } from "ink";
import React from "react";

const h = React.createElement;

export type LineEdit = { kind: "change"; value: string } | { kind: "submit" } | { kind: "cancel" } | null;

/** Printable characters only: pasted newlines and escape bytes never reach the value. */
function printable(input: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  return input.replace(/[\u0000-\u001f\u007f]/g, "");
}

/** What a key does to a line being edited; null for keys the field leaves to others (arrows, tab). */
export function editLine(value: string, input: string, key: Key): LineEdit {
  if (key.return) return { kind: "submit" };
  if (key.escape) return { kind: "cancel" };
  if (key.backspace || key.delete) return { kind: "change", value: value.slice(0, -1) };
  if (key.ctrl && input === "u") return { kind: "change", value: "" };
  if (key.ctrl || key.meta || key.upArrow || key.downArrow || key.tab) return null;
  const text = printable(input);
  return text ? { kind: "change", value: value + text } : null;
}

export function TextField({
  value,
  focused,
  placeholder,
}: {
  value: string;
  focused: boolean;
  placeholder?: string;
}) {
  if (!value && !focused && placeholder) return h(Text, { dimColor: true }, placeholder);
  return h(Text, null, value, focused ? h(Text, { inverse: true }, " ") : null);
}
