/**
 * An exec's output as a streamed call reports it (REST Server-Sent Events, MCP progress): decoded
 * as UTF-8 per stream, a character split between two chunks sent whole, and no more of each stream
 * than the answer carries (the runtime port's caps: 1 MiB of stdout, 256 KiB of stderr), so what a
 * stream delivers is what the JSON answer would hold and a chatty command cannot grow the queue of
 * a slow reader without end.
 */
import type { ToolProgress } from "../../tool.ts";

export const streamedOutputCaps = { stdout: 1024 * 1024, stderr: 256 * 1024 } as const;

export interface OutputReporter {
  /** The runtime's `onOutput`. */
  onOutput(stream: "stdout" | "stderr", bytes: Uint8Array): void;
  /** Sends what a decoder still holds (an incomplete last character); once, when the exec has ended. */
  flush(): void;
}

export function createOutputReporter(report: (progress: ToolProgress) => void): OutputReporter {
  const streams = {
    stdout: { decoder: new TextDecoder(), sent: 0 },
    stderr: { decoder: new TextDecoder(), sent: 0 },
  };
  return {
    onOutput(stream, bytes) {
      const state = streams[stream];
      const room = streamedOutputCaps[stream] - state.sent;
      if (room <= 0) return;
      const kept = bytes.length > room ? bytes.subarray(0, room) : bytes;
      state.sent += kept.length;
      const text = state.decoder.decode(kept, { stream: true });
      if (text !== "") report({ kind: "output", stream, text });
    },
    flush() {
      for (const stream of ["stdout", "stderr"] as const) {
        const text = streams[stream].decoder.decode();
        if (text !== "") report({ kind: "output", stream, text });
      }
    },
  };
}
