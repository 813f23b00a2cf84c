/**
 * The TUI's frame: a header with the screens as tabs and the server's address, the shown screen,
 * and the help bar. Global keys (1-3, tab, q) work unless the screen's mode takes every key.
 */
import type { CairnClient } from "cairn-client";
import { Box, Text, useApp, useInput, useWindowSize } from "ink";
import React, { useMemo } from "react";
import { AccountScreen } from "./account-screen.ts";
import { HelpBar, isCaptured, type Mode } from "./help-bar.ts";
import { MemoryScreen } from "./memory-screen.ts";
import type { ScreenProps } from "./screen-props.ts";
import { SessionsScreen } from "./sessions-screen.ts";
import { useRefState } from "./use-ref-state.ts";

const h = React.createElement;

const screens: ReadonlyArray<{
  title: string;
  initialMode: Mode;
  component: (props: ScreenProps) => React.ReactNode;
}> = [
  { title: "Account", initialMode: "account:view", component: AccountScreen },
  { title: "Sessions", initialMode: "sessions:list", component: SessionsScreen },
  { title: "Memory", initialMode: "memory:browse", component: MemoryScreen },
];

export interface AppProps {
  client: CairnClient;
  baseUrl: string;
}

export function App({ client, baseUrl }: AppProps) {
  const { exit } = useApp();
  const { columns, rows } = useWindowSize();
  // Refs beside the state: the key after one that opens a text field must already count as typing.
  const [shown, setShown, shownRef] = useRefState(0);
  const [modes, setModes, modesRef] = useRefState<Mode[]>(screens.map((screen) => screen.initialMode));
  const mode = modes[shown];
  // One stable callback per screen, so a screen's mode report does not re-run on every render.
  const modeSetters = useMemo(
    () =>
      screens.map((_, index) => (next: Mode) => {
        if (modesRef.current[index] !== next) setModes(modesRef.current.with(index, next));
      }),
    [modesRef, setModes],
  );
  const shownCheckers = useMemo(
    () => screens.map((_, index) => () => shownRef.current === index),
    [shownRef],
  );
  useInput((input, key) => {
    if (isCaptured(modesRef.current[shownRef.current])) return;
    if (input === "q") exit();
    else if (key.tab) setShown((shownRef.current + (key.shift ? screens.length - 1 : 1)) % screens.length);
    else if (/^[1-9]$/.test(input) && Number(input) <= screens.length) setShown(Number(input) - 1);
  });
  const width = Math.max(40, columns);
  // Header and help bar take one row each; the rest belongs to the screen.
  const bodyHeight = Math.max(6, rows - 2);
  return h(
    Box,
    { flexDirection: "column", width, height: bodyHeight + 2 },
    h(
      Box,
      { height: 1, width },
      h(Text, { bold: true, color: "magenta" }, "cairn "),
      ...screens.map((screen, index) =>
        h(
          Text,
          { key: screen.title, inverse: index === shown, bold: index === shown },
          ` ${index + 1} ${screen.title} `,
        ),
      ),
      h(
        Box,
        { flexGrow: 1, justifyContent: "flex-end", overflow: "hidden" },
        h(Text, { dimColor: true, wrap: "truncate-start" }, baseUrl),
      ),
    ),
    ...screens.map((screen, index) =>
      h(
        Box,
        {
          key: screen.title,
          display: index === shown ? "flex" : "none",
          height: bodyHeight,
          width,
          flexDirection: "column",
          overflow: "hidden",
        },
        h(screen.component, {
          client,
          active: index === shown,
          isShown: shownCheckers[index],
          width,
          height: bodyHeight,
          onModeChange: modeSetters[index],
        }),
      ),
    ),
    h(HelpBar, { mode, width }),
  );
}
