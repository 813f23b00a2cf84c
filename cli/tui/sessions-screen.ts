/**
 * The sessions screen: the active sandboxes, creating and destroying them (with a y/n question),
 * running a command in the selected one and seeing its output, browsing its files, and its
 * background processes (a list, and one followed live), its activity feed, and its takeover
 * terminal (full-screen, until Ctrl-] or its end; use-takeover-terminal.ts).
 */
import { Box, Text, useInput } from "ink";
import React, { useEffect, useState } from "react";
import { ActivityFeed } from "./activity-feed.ts";
import { CommandOutput } from "./command-output.ts";
import { FileBrowser } from "./file-browser.ts";
import type { Mode } from "./help-bar.ts";
import { ProcessList } from "./process-list.ts";
import { type ScreenProps, useReportMode, useScreenMode } from "./screen-props.ts";
import { editLine, TextField } from "./text-input.ts";
import { useRefState } from "./use-ref-state.ts";
import { useSessionFiles, workspaceRoot } from "./use-session-files.ts";
import { useSessionProcesses } from "./use-session-processes.ts";
import { type Session, useSessions } from "./use-sessions.ts";
import { useTakeoverTerminal } from "./use-takeover-terminal.ts";
import { moveSelection, visibleWindow } from "./visible-window.ts";

const h = React.createElement;

type SessionsMode = "list" | "command" | "confirm-destroy" | "files" | "processes" | "activity" | "terminal";

const maxListRows = 6;

/** When a session started and when it expires, as UTC clock times. */
function lifetime(session: Session): string {
  return `${session.created_at.slice(11, 16)}–${session.expires_at.slice(11, 16)} UTC`;
}

const toSessionsMode = (mode: SessionsMode): Mode => `sessions:${mode}`;

export function SessionsScreen({ client, active, isShown, width, height, onModeChange }: ScreenProps) {
  const { sessions, loading, busy, error, runs, refresh, create, destroy, run } = useSessions(client, active);
  const files = useSessionFiles(client);
  const processes = useSessionProcesses(client);
  const terminal = useTakeoverTerminal(client);
  const [selected, setSelected] = useState(0);
  const [mode, setMode, modeRef] = useScreenMode<SessionsMode>("list", toSessionsMode, onModeChange);
  const [command, setCommand, commandRef] = useRefState("");
  const [selectAfterRefresh, setSelectAfterRefresh] = useState<string | null>(null);
  const session = sessions[selected];
  const shownMode: Mode =
    mode === "files"
      ? files.file
        ? "sessions:file"
        : "sessions:files"
      : mode === "processes"
        ? processes.followed
          ? "sessions:process"
          : "sessions:processes"
        : `sessions:${mode}`;
  useReportMode(active, shownMode, onModeChange);

  // Keep the selection on the list after it shrinks, and on a just-created session once it is listed.
  useEffect(() => {
    const created = selectAfterRefresh ? sessions.findIndex((item) => item.id === selectAfterRefresh) : -1;
    if (created >= 0) {
      setSelected(created);
      setSelectAfterRefresh(null);
    } else if (selected >= sessions.length) setSelected(Math.max(0, sessions.length - 1));
  }, [sessions, selected, selectAfterRefresh]);

  // A session that ended elsewhere while its files or processes were open takes them with it.
  useEffect(() => {
    if ((mode === "files" || mode === "processes" || mode === "activity") && !session) setMode("list");
  }, [mode, session, setMode]);

  useInput((input, key) => {
    if (!isShown()) return;
    const current = modeRef.current;
    // The file browser and the process list take their own keys.
    if (current === "files" || current === "processes") return;
    // Opening the terminal: keys typed before it has the screen go nowhere (not to `q`).
    if (current === "terminal") return;
    if (current === "command") {
      const edit = editLine(commandRef.current, input, key);
      if (edit?.kind === "change") setCommand(edit.value);
      else if (edit?.kind === "submit") {
        const text = commandRef.current;
        if (session && text.trim()) void run(session.id, text);
        setCommand("");
        setMode("list");
      } else if (edit?.kind === "cancel") setMode("list");
      return;
    }
    if (current === "confirm-destroy") {
      if (input === "y" && session) void destroy(session.id);
      if (input === "y" || input === "n" || key.escape) setMode("list");
      return;
    }
    terminal.clearNotice();
    if (key.upArrow) setSelected((index) => moveSelection(index, -1, sessions.length));
    else if (key.downArrow) setSelected((index) => moveSelection(index, 1, sessions.length));
    else if (input === "c" && !busy) {
      void create().then((created) => {
        if (created) setSelectAfterRefresh(created.id);
      });
    } else if (input === "r") void refresh();
    else if (!session) return;
    else if (key.return || input === "x") setMode("command");
    else if (input === "d") setMode("confirm-destroy");
    else if (input === "t") {
      setMode("terminal");
      // Back from the terminal: the list again (a destroyed sandbox leaves it), as it was.
      void terminal.open(session.id).then(() => {
        setMode("list");
        void refresh();
      });
    } else if (input === "f") {
      files.closeFile();
      void files.open(session.id, workspaceRoot);
      setMode("files");
    } else if (input === "p") {
      processes.unfollow();
      setMode("processes");
    } else if (input === "a") setMode("activity");
  });

  if (mode === "files" && session) {
    return h(FileBrowser, {
      sessionId: session.id,
      files,
      active,
      height,
      onBack: () => setMode("list"),
    });
  }

  if (mode === "activity" && session) {
    return h(ActivityFeed, { client, sessionId: session.id, active, height, onBack: () => setMode("list") });
  }

  if (mode === "processes" && session) {
    return h(ProcessList, {
      sessionId: session.id,
      processes,
      active,
      height,
      onBack: () => setMode("list"),
    });
  }

  const listRows = Math.min(maxListRows, Math.max(1, sessions.length));
  const window = visibleWindow(sessions, selected, listRows);
  const outputRows = Math.max(1, height - listRows - 4);
  const notice = terminal.notice;
  const status = busy
    ? h(Text, { color: "yellow" }, busy)
    : mode === "terminal"
      ? h(Text, { color: "yellow" }, "Opening the terminal…")
      : notice
        ? h(Text, { color: notice.tone === "error" ? "red" : undefined, wrap: "truncate-end" }, notice.text)
        : error
          ? h(Text, { color: "red", wrap: "truncate-end" }, error)
          : h(Text, { dimColor: true }, loading ? "Loading…" : " ");

  let commandLine: React.ReactNode;
  if (mode === "command") {
    commandLine = h(
      Text,
      null,
      h(Text, { color: "cyan" }, "$ "),
      h(TextField, { value: command, focused: active }),
    );
  } else if (mode === "confirm-destroy" && session) {
    commandLine = h(Text, { color: "red", bold: true }, `Destroy session ${session.id}? (y/n)`);
  } else {
    commandLine = h(Text, { dimColor: true }, session ? "Press enter to run a command." : " ");
  }

  return h(
    Box,
    { flexDirection: "column", paddingX: 1, width },
    h(Text, { bold: true }, `Sessions  `, h(Text, { dimColor: true }, `${sessions.length} active`)),
    status,
    sessions.length === 0 && !loading
      ? h(Text, { dimColor: true }, "No active sessions. Press c to create one.")
      : null,
    ...window.items.map((item, offset) => {
      const isSelected = window.start + offset === selected;
      return h(
        Text,
        { key: item.id, inverse: isSelected, wrap: "truncate-end" },
        `${isSelected ? "›" : " "} ${item.id}  ${item.label ?? ""}  ${lifetime(item)}`,
      );
    }),
    h(Box, { marginTop: 1 }, commandLine),
    session ? h(CommandOutput, { run: runs[session.id], rows: outputRows }) : null,
  );
}
