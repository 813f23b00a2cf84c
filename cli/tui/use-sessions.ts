/** The sessions screen's data: the active sessions, and creating, destroying and running commands in them. */
import type { CairnClient } from "cairn-client";
import { useCallback, useEffect, useState } from "react";
import { describeError } from "./describe-error.ts";

export type Session = Awaited<ReturnType<CairnClient["listSandboxes"]>>[number];
export type ExecResult = Awaited<ReturnType<CairnClient["exec"]>>;

/** The last command run in a session, with its result or why it failed. */
export interface CommandRun {
  command: string;
  running: boolean;
  result: ExecResult | null;
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

  const run = useCallback(
    async (sessionId: string, command: string) => {
      setRuns((previous) => ({
        ...previous,
        [sessionId]: { command, running: true, result: null, error: null },
      }));
      try {
        const result = await client.exec(sessionId, command);
        setRuns((previous) => ({
          ...previous,
          [sessionId]: { command, running: false, result, error: null },
        }));
      } catch (caught) {
        const message = describeError(caught);
        setRuns((previous) => ({
          ...previous,
          [sessionId]: { command, running: false, result: null, error: message },
        }));
      }
    },
    [client],
  );

  return { sessions, loading, busy, error, runs, refresh, create, destroy, run };
}
