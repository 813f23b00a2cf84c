/**
 * The Ink TUI's entry (`cairn tui`, and `cairn` alone in a terminal): renders the app on the
 * alternate screen, so the shell's scrollback is left as it was, and resolves when the user quits.
 */
import type { CairnClient } from "cairn-client";
import { render } from "ink";
import React from "react";
import { App } from "./app.ts";

export interface TuiOptions {
  client: CairnClient;
  baseUrl: string;
}

export async function runTui({ client, baseUrl }: TuiOptions): Promise<void> {
  const instance = render(React.createElement(App, { client, baseUrl }), {
    alternateScreen: true,
    // A terminal is interactive even where CI=true is set (Ink would otherwise draw only the last frame).
    interactive: Boolean(process.stdout.isTTY),
    exitOnCtrlC: true,
  });
  await instance.waitUntilExit();
}
