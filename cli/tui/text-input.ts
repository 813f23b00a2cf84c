/** A one-line text field on Ink's useInput: typing, backspace, Enter to submit, Esc to cancel. */
import { Text, useInput } from "ink";
import React from "react";

const h = React.createElement;

export interface TextInputProps {
  value: string;
  onChange(value: string): void;
  onSubmit?(value: string): void;
  onCancel?(): void;
  /** Only the focused field takes keys. */
  focused: boolean;
  placeholder?: string;
}

/** Printable characters only: pasted newlines and escape bytes never reach the value. */
function printable(input: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  return input.replace(/[\u0000-\u001f\u007f]/g, "");
}

export function TextInput({ value, onChange, onSubmit, onCancel, focused, placeholder }: TextInputProps) {
  useInput(
    (input, key) => {
      if (key.return) onSubmit?.(value);
      else if (key.escape) onCancel?.();
      else if (key.backspace || key.delete) onChange(value.slice(0, -1));
      else if (key.ctrl && input === "u") onChange("");
      else if (!key.ctrl && !key.meta && !key.upArrow && !key.downArrow && !key.tab) {
        const text = printable(input);
        if (text) onChange(value + text);
      }
    },
    { isActive: focused },
  );
  if (!value && !focused && placeholder) return h(Text, { dimColor: true }, placeholder);
  return h(Text, null, value, focused ? h(Text, { inverse: true }, " ") : null);
}
