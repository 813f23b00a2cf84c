/**
 * The process list's data: one session's background processes, reloaded while shown, and the one
 * being followed, its output read through the SDK's stream (`streamProcess`) until its exit.
 */
import type { CairnClient, ProcessExitEvent } from "cairn-client";
import { useCallback, useEffect, useRef, useState } from "react";
import { describeError } from "./describe-error.ts";

export type ProcessInfo = Awaited<ReturnType<CairnClient["listProcesses"]>>["processes"][number];

/** The followed process's output keeps its last characters only: a screen shows its end. */
const keptOutputCharacters = 64 * 1024;

export interface OutputLine {
  text: string;
  fromStderr: boolean;
}

export interface FollowedProcess {
  process: ProcessInfo;
  output: ProcessOutput;
  /** Bytes before what the stream started with were dropped by the server's bound. */
  truncated: boolean;
  exit: ProcessExitEvent | null;
  error: string | null;
}

/** Output as lines; `open` when the last one has not ended with a newline yet. */
export interface ProcessOutput {
  lines: OutputLine[];
  open: boolean;
}

/** Adds a chunk of one stream: a chunk that does not end its line is continued by the next one. */
export function appendOutput(output: ProcessOutput, chunk: string, fromStderr: boolean): ProcessOutput {
  if (!chunk) return output;
  const lines = [...output.lines];
  let pieces = chunk.split("\n");
  if (chunk.endsWith("\n")) pieces = pieces.slice(0, -1);
  const last = lines.at(-1);
  if (output.open && last && last.fromStderr === fromStderr) {
    lines[lines.length - 1] = { text: last.text + pieces[0], fromStderr };
    pieces = pieces.slice(1);
  }
  for (const text of pieces) lines.push({ text, fromStderr });
  // Keep the end: whole lines go from the front past the kept size.
  let size = lines.reduce((total, line) => total + line.text.length + 1, 0);
  while (lines.length > 1 && size > keptOutputCharacters) size -= (lines.shift()?.text.length ?? 0) + 1;
  if (size > keptOutputCharacters)
    lines[0] = { ...lines[0], text: lines[0].text.slice(-keptOutputCharacters) };
  return { lines, open: !chunk.endsWith("\n") };
}

export function useSessionProcesses(client: CairnClient) {
  // Whose list it is: another session's list is not shown while this one's loads.
  const [listed, setListed] = useState<{ sessionId: string; processes: ProcessInfo[] } | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [followed, setFollowed] = useState<FollowedProcess | null>(null);
  const following = useRef<AbortController | null>(null);

  const refresh = useCallback(
    async (sessionId: string) => {
      setLoading(true);
      try {
        const listed = await client.listProcesses(sessionId);
        setListed({ sessionId, processes: listed.processes });
        setError(null);
      } catch (caught) {
        setError(describeError(caught));
      } finally {
        setLoading(false);
      }
    },
    [client],
  );

  const unfollow = useCallback(() => {
    following.current?.abort();
    following.current = null;
    setFollowed(null);
  }, []);

  const follow = useCallback(
    async (sessionId: string, process: ProcessInfo) => {
      following.current?.abort();
      const controller = new AbortController();
      following.current = controller;
      setFollowed({ process, output: { lines: [], open: false }, truncated: false, exit: null, error: null });
      const update = (change: (current: FollowedProcess) => FollowedProcess) => {
        if (!controller.signal.aborted) setFollowed((current) => (current ? change(current) : current));
      };
      try {
        for await (const event of client.streamProcess(sessionId, process.process_id, {
          signal: controller.signal,
        })) {
          if (event.type === "exit") {
            update((current) => ({ ...current, exit: event }));
            break;
          }
          update((current) => ({
            ...current,
            truncated: current.truncated || event.truncated,
            output: appendOutput(
              appendOutput(current.output, event.stdout_chunk, false),
              event.stderr_chunk,
              true,
            ),
          }));
        }
      } catch (caught) {
        if (!controller.signal.aborted) update((current) => ({ ...current, error: describeError(caught) }));
      }
      if (!controller.signal.aborted) await refresh(sessionId);
    },
    [client, refresh],
  );

  // A stream still open when the screen goes away ends with it.
  useEffect(() => () => following.current?.abort(), []);

  const processesOf = useCallback(
    (sessionId: string) => (listed?.sessionId === sessionId ? listed.processes : []),
    [listed],
  );

  return { processesOf, loading, error, followed, refresh, follow, unfollow };
}
