/**
 * Driving the TUI in ink-testing-library: the app rendered against a live server's client, keys
 * written to its stdin, and a bounded wait for a frame that shows what the user would see next.
 */
import { CairnClient } from "cairn-client";
import { render } from "ink-testing-library";
import React from "react";
import { App } from "../../cli/tui/app.ts";

/** Bound for one live test: the whole suite shares two cores, so one may run much slower than alone. */
export const liveTestTimeoutMs = 180_000;

export const keys = {
  enter: "\r",
  escape: "\u001B",
  tab: "\t",
  backspace: "\u007F",
  up: "\u001B[A",
  down: "\u001B[B",
} as const;

export type RenderedApp = ReturnType<typeof render>;

export function renderApp(baseUrl: string, apiKey?: string): { app: RenderedApp; client: CairnClient } {
  const client = new CairnClient({ baseUrl, apiKey });
  const app = render(React.createElement(App, { client, baseUrl }));
  return { app, client };
}

/** Ink's text without colours, so assertions read what a person reads. */
export function plainFrame(app: RenderedApp): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing ANSI escapes
  return (app.lastFrame() ?? "").replace(/\u001B\[[0-9;]*m/g, "");
}

/** Waits (bounded) until the frame matches; fails with the last frame so a miss shows what was on screen. */
export async function waitForFrame(
  app: RenderedApp,
  expected: string | RegExp | ((frame: string) => boolean),
  limitMs = 20_000,
): Promise<string> {
  const matches = (frame: string) =>
    typeof expected === "string"
      ? frame.includes(expected)
      : expected instanceof RegExp
        ? expected.test(frame)
        : expected(frame);
  const deadline = Date.now() + limitMs;
  for (;;) {
    const frame = plainFrame(app);
    if (matches(frame)) return frame;
    if (Date.now() > deadline)
      throw new Error(`no frame matched ${String(expected)}; the last one:\n${frame}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Writes keys one at a time, each after the app has had a turn to handle the one before. */
export async function press(app: RenderedApp, ...sequence: string[]): Promise<void> {
  for (const key of sequence) {
    app.stdin.write(key);
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}

/** Types text as one chunk, as a terminal delivers a paste or fast typing. */
export async function type(app: RenderedApp, text: string): Promise<void> {
  app.stdin.write(text);
  await new Promise((resolve) => setTimeout(resolve, 30));
}
