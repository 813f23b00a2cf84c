/**
 * Takeover terminals (docs/sandboxes.md#takeover-terminal): one PTY per sandbox, shared by every
 * viewer attached to it. Its output goes to all of them; keystrokes of a viewer that is not
 * read-only go to the PTY; read-only observers' never do. The PTY starts with the first viewer
 * and is hung up when the last one leaves. Input and output are recorded, bounded (the oldest
 * events are dropped past `recordingBytes`), and kept after the terminal ends until the sandbox
 * is destroyed. Also the single-use tokens a browser opens the terminal with. Each viewer's
 * arrival and departure goes to the sandbox's activity feed (docs/sandboxes.md#activity) with the
 * key that opened it, the departure with how long it stayed and how many bytes it typed; never
 * the keystrokes.
 */
import { ServiceError } from "../../errors.ts";
import type { SandboxActivityRecorder } from "../../ports/sandbox-activity.ts";
import type { SandboxProcess, SandboxRuntime } from "../../ports/sandbox-runtime.ts";
import { ptyFrame, ptyHelperCommand, resizeFrame } from "./pty-helper.ts";

export interface TerminalViewer {
  /** Output of the PTY, raw. */
  send(bytes: Uint8Array): void;
  /** The terminal ended (1000) or the server is stopping (1001). */
  close(code: number, reason: string): void;
}

export interface RecordedEvent {
  at: Date;
  stream: "input" | "output";
  bytes: Uint8Array;
}

export interface TakeoverToken {
  accountId: string;
  /** The API key that minted it, for the activity feed; null when unknown. */
  keyId: string | null;
  sessionId: string;
  readOnly: boolean;
  expiresAt: Date;
}

/** A viewer's stay, for its `close` entry in the activity feed. */
interface Stay {
  keyId: string | null;
  since: Date;
  typed: number;
}

interface Terminal {
  process: Promise<SandboxProcess>;
  writer: Promise<WritableStreamDefaultWriter<Uint8Array>>;
  viewers: Map<TerminalViewer, Stay>;
}

interface Recording {
  events: RecordedEvent[];
  bytes: number;
  dropped: boolean;
}

export const takeoverTokenSeconds = 60;

/** What a takeover terminal is, as its activity entries name it (their subject). */
export const terminalSubject = "/bin/sh -i";

export function createTakeoverTerminals(options: {
  now: () => Date;
  recordingBytes?: number;
  /** Where the viewers' open and close entries go; none records nothing (unit tests). */
  activity?: SandboxActivityRecorder;
}) {
  const recordingBytes = options.recordingBytes ?? 1_048_576;
  // Entries are written one after another, so a viewer's close never lands before its open;
  // `close` awaits the queue so none outlives the storage.
  let writing = Promise.resolve();
  const recordActivity = (
    sessionId: string,
    stay: Stay,
    entry: { operation: "open" | "close"; detail: string; bytes: number | null },
  ): void => {
    const activity = options.activity;
    if (!activity) return;
    const at = options.now();
    // recordActivity logs a failure rather than throwing.
    writing = writing.then(() =>
      activity.recordActivity(sessionId, {
        kind: "terminal",
        subject: terminalSubject,
        at,
        keyId: stay.keyId,
        ...entry,
      }),
    );
  };
  const leave = (sessionId: string, stay: Stay): void =>
    recordActivity(sessionId, stay, {
      operation: "close",
      detail: `${options.now().getTime() - stay.since.getTime()} ms`,
      bytes: stay.typed,
    });
  const terminals = new Map<string, Terminal>();
  const recordings = new Map<string, Recording>();
  const tokens = new Map<string, TakeoverToken>();

  const record = (sessionId: string, stream: RecordedEvent["stream"], bytes: Uint8Array) => {
    let recording = recordings.get(sessionId);
    if (!recording) {
      recording = { events: [], bytes: 0, dropped: false };
      recordings.set(sessionId, recording);
    }
    recording.events.push({ at: options.now(), stream, bytes });
    recording.bytes += bytes.length;
    while (recording.bytes > recordingBytes && recording.events.length > 0) {
      recording.bytes -= recording.events.shift()?.bytes.length ?? 0;
      recording.dropped = true;
    }
  };

  const end = (sessionId: string, terminal: Terminal, code: number, reason: string) => {
    if (terminals.get(sessionId) !== terminal) return;
    terminals.delete(sessionId);
    for (const [viewer, stay] of terminal.viewers) {
      leave(sessionId, stay);
      viewer.close(code, reason);
    }
    terminal.viewers.clear();
    void terminal.process.then((process) => process.kill()).catch(() => {});
  };

  const start = (runtime: SandboxRuntime, sessionId: string, rows: number, cols: number): Terminal => {
    if (!runtime.spawnProcess)
      throw new ServiceError("service_unavailable", "This sandbox runtime has no terminals");
    const process = runtime.spawnProcess(sessionId, {
      command: ptyHelperCommand(rows, cols),
      kind: "command",
    });
    const terminal: Terminal = {
      process,
      writer: process.then((started) => started.stdin.getWriter()),
      viewers: new Map(),
    };
    void process
      .then(async (started) => {
        started.stderr?.cancel().catch(() => {});
        const reader = started.stdout.getReader();
        for (;;) {
          const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
          if (done || !value) break;
          record(sessionId, "output", value);
          for (const viewer of terminal.viewers.keys()) viewer.send(value);
        }
        end(sessionId, terminal, 1000, "the terminal ended");
      })
      .catch(() => end(sessionId, terminal, 1011, "the terminal could not start"));
    return terminal;
  };

  return {
    /** Attaches a viewer, starting the sandbox's terminal if none runs. */
    attach(
      runtime: SandboxRuntime,
      sessionId: string,
      viewer: TerminalViewer,
      settings: { readOnly: boolean; keyId?: string | null; rows?: number; cols?: number },
    ) {
      let terminal = terminals.get(sessionId);
      if (!terminal) {
        terminal = start(runtime, sessionId, settings.rows ?? 24, settings.cols ?? 80);
        terminals.set(sessionId, terminal);
      }
      const attached = terminal;
      const stay: Stay = { keyId: settings.keyId ?? null, since: options.now(), typed: 0 };
      attached.viewers.set(viewer, stay);
      recordActivity(sessionId, stay, {
        operation: "open",
        detail: settings.readOnly ? "read-only" : "read-write",
        bytes: null,
      });
      const write = (bytes: Uint8Array) =>
        attached.writer.then((writer) => writer.write(bytes)).catch(() => {});
      return {
        input(bytes: Uint8Array): void {
          if (settings.readOnly || bytes.length === 0) return;
          stay.typed += bytes.length;
          record(sessionId, "input", bytes);
          void write(ptyFrame(0, bytes));
        },
        resize(rows: number, cols: number): void {
          if (settings.readOnly) return;
          void write(resizeFrame(rows, cols));
        },
        detach(): void {
          // A viewer the terminal's end already let go is recorded as gone.
          if (!attached.viewers.delete(viewer)) return;
          leave(sessionId, stay);
          if (attached.viewers.size === 0) end(sessionId, attached, 1000, "the last viewer left");
        },
      };
    },
    recording(sessionId: string): { events: RecordedEvent[]; dropped: boolean } {
      const recording = recordings.get(sessionId);
      return { events: [...(recording?.events ?? [])], dropped: recording?.dropped ?? false };
    },
    mintToken(
      accountId: string,
      sessionId: string,
      readOnly: boolean,
      keyId: string | null = null,
    ): { token: string; expiresAt: Date } {
      const now = options.now();
      for (const [token, held] of tokens) if (held.expiresAt <= now) tokens.delete(token);
      const bytes = crypto.getRandomValues(new Uint8Array(32));
      const token = `tkt_${[...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("")}`;
      const expiresAt = new Date(now.getTime() + takeoverTokenSeconds * 1000);
      tokens.set(token, { accountId, keyId, sessionId, readOnly, expiresAt });
      return { token, expiresAt };
    },
    /** The token's grant, once: a second use, or a use after its expiry, is null. */
    useToken(token: string): TakeoverToken | null {
      const held = tokens.get(token);
      tokens.delete(token);
      if (!held || held.expiresAt <= options.now()) return null;
      return held;
    },
    endingWithSessions(runtime: SandboxRuntime): SandboxRuntime {
      return new Proxy(runtime, {
        get(target, property, receiver) {
          if (property === "destroy") {
            return (id: string) => {
              const terminal = terminals.get(id);
              if (terminal) end(id, terminal, 1000, "the sandbox was destroyed");
              recordings.delete(id);
              return target.destroy(id);
            };
          }
          return Reflect.get(target, property, receiver);
        },
      });
    },
    /** Ends every terminal, and resolves once their viewers' close entries are written. */
    async close(): Promise<void> {
      for (const [id, terminal] of [...terminals]) end(id, terminal, 1001, "the server is stopping");
      await writing;
    },
  };
}

export type TakeoverTerminals = ReturnType<typeof createTakeoverTerminals>;
