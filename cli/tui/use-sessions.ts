/**
 * The sessions screen's data: the active sessions, and creating, destroying and running commands
 * in them. A command's output is read through the SDK's exec stream (`execStream`), so the screen
 * shows it as the command writes it.
 */
import type { CairnClient, ExecExitEvent } from "cairn-client";
import { useCallback, useEffect, useRef, useState } from "react";
import { describeError } from "./describe-error.ts";
import { appendOutput, type ProcessOutput } from "./use-session-processes.ts";

export type Session = Awaited<ReturnType<CairnClient["listSandboxes"]>>[number];

/** The last command run in a session: its output so far, then how it ended or why it failed. */
export interface CommandRun {
  /** Tells this run from a later one of the same command in the same session. */
  id: number;
  command: string;
  running: boolean;
  /** stdout and stderr as lines, in the order the command wrote them (its last 64 KiB). */
  output: ProcessOutput;
  /** The exit: the exec's answer without its output. */
  result: ExecExitEvent | null;
  error: string | null;
}

export function useSessions(client: CairnClient, active: boolean) {
  const [sessions, setSessions] = useState<Session[]>([]);
  const [loading, setLoading] = useState(true);
  /** What is under way, e.g. "Creating a session…"; null when idle. */
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [runs, setRuns] = useState<Record<string, CommandRun>>({});

  const refresh = useCallback(async () => {
    try {
      const listed = await client.listSandboxes({ activeOnly: true });
      setSessions(listed.toSorted((left, right) => left.created_at.localeCompare(right.created_at)));
      setError(null);
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setLoading(false);
    }
  }, [client]);

  // Sessions end elsewhere too (expiry, other clients): reload each time the screen is shown.
  useEffect(() => {
    if (active) void refresh();
  }, [active, refresh]);

  /** Runs `work` with a busy note; a failure becomes the screen's error line. Returns work's result. */
  const withBusy = useCallback(async <T>(note: string, work: () => Promise<T>): Promise<T | null> => {
    setBusy(note);
    setError(null);
    try {
      return await work();
    } catch (caught) {
      setError(describeError(caught));
      return null;
    } finally {
      setBusy(null);
    }
  }, []);

  const create = useCallback(async () => {
    const created = await withBusy("Creating a session…", () => client.createSandbox({ label: "tui" }));
    await refresh();
    return created;
  }, [client, refresh, withBusy]);

  const destroy = useCallback(
    async (sessionId: string) => {
      await withBusy("Destroying the session…", () => client.destroySandbox(sessionId));
      await refresh();
    },
    [client, refresh, withBusy],
  );

  // The streams of commands still running; they end (killing their commands) with the screen.
  const streams = useRef(new Set<AbortController>());
  const runCount = useRef(0);
  useEffect(() => {
    const open = streams.current;
    return () => {
      for (const controller of open) controller.abort();
    };
  }, []);

  const run = useCallback(
    async (sessionId: string, command: string) => {
      const controller = new AbortController();
      streams.current.add(controller);
      const id = ++runCount.current;
      const update = (change: (current: CommandRun) => CommandRun) =>
        setRuns((previous) => {
          const current = previous[sessionId];
          // A later command in the same session replaces this one's view.
          return current?.id === id ? { ...previous, [sessionId]: change(current) } : previous;
        });
      setRuns((previous) => ({
        ...previous,
        [sessionId]: {
          id,
          command,
          running: true,
          output: { lines: [], open: false },
          result: null,
          error: null,
        },
      }));
      try {
        for await (const event of client.execStream(sessionId, command, { signal: controller.signal })) {
          if (event.type === "exit") {
            update((current) => ({ ...current, running: false, result: event }));
            break;
          }
          update((current) => ({
            ...current,
            output: appendOutput(
              appendOutput(current.output, event.stdout_chunk, false),
              event.stderr_chunk ?? "",
              true,
            ),
          }));
        }
      } catch (caught) {
        if (!controller.signal.aborted)
          update((current) => ({ ...current, running: false, error: describeError(caught) }));
      } finally {
        streams.current.delete(controller);
      }
    },
    [client],
  );

  return { sessions, loading, busy, error, runs, refresh, create, destroy, run };
}
