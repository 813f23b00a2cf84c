/**
 * Where tenant patterns are matched (core/sandboxes/patterns/pattern-tasks.ts). Their CPU is the
 * tenant's to choose (a pattern, file sizes, file names, a command's length), so the Node server
 * runs them on pattern threads (platform/pattern-threads.ts): off the event loop, at a lower
 * scheduling priority, each account's tasks taking turns with the other accounts', and a task
 * past its time ended with its thread. In process (Deno) the same tasks run on the serving
 * thread, where RE2 still bounds each one by its input's size.
 */
import {
  type PatternTaskInput,
  type PatternTaskName,
  type PatternTaskOutput,
  patternTasks,
} from "../sandboxes/patterns/pattern-tasks.ts";

export interface PatternWork {
  /** Runs a task for an account; rejects with PatternTimeout when it has not finished in `timeoutMs`. */
  run<Name extends PatternTaskName>(
    accountId: string,
    name: Name,
    input: PatternTaskInput<Name>,
    timeoutMs: number,
  ): Promise<PatternTaskOutput<Name>>;
  close(): Promise<void>;
}

/** A pattern task ran out of its time (it waited its turn, or ran, too long). */
export class PatternTimeout extends Error {
  constructor(name: string, timeoutMs: number) {
    super(`${name} did not finish within ${timeoutMs} ms`);
    this.name = "PatternTimeout";
  }
}

/** One account's view: what the file operations and exec are handed. */
export type RunPatternTask = <Name extends PatternTaskName>(
  name: Name,
  input: PatternTaskInput<Name>,
  timeoutMs: number,
) => Promise<PatternTaskOutput<Name>>;

/** One account's tasks on `work`. */
export function accountPatternWork(work: PatternWork, accountId: string): RunPatternTask {
  return (name, input, timeoutMs) => work.run(accountId, name, input, timeoutMs);
}

/** The tasks on the calling thread; timeouts are not enforced (a running task cannot be stopped). */
export const runPatternTaskInline: RunPatternTask = async (name, input) =>
  (patternTasks[name] as (input: unknown) => PatternTaskOutput<typeof name>)(input);

export function createInlinePatternWork(): PatternWork {
  return {
    run: (_accountId, name, input, timeoutMs) => runPatternTaskInline(name, input, timeoutMs),
    close: async () => {},
  };
}
