/**
 * Pattern tasks (core/ports/pattern-work.ts) on worker threads: the CPU a tenant's pattern,
 * file sizes, file names or command length make the server spend is spent off the event loop
 * that serves every account. Accounts take turns (account-turns.ts): a free thread takes the next
 * task of the account with the fewest tasks running, among equals the one served longest ago. A
 * task still running at its deadline is ended
 * with its thread (a running match cannot be interrupted otherwise) and the thread replaced.
 * The threads lower their own scheduling priority, so the serving thread wins a busy core. They
 * start with the first task that finds every thread busy, up to `threads`.
 */
import { Worker } from "node:worker_threads";
import { PatternTimeout, type PatternWork } from "../core/index.ts";
import type { Logger } from "../core/ports/logger.ts";
import type {
  PatternTaskInput,
  PatternTaskName,
  PatternTaskOutput,
} from "../core/sandboxes/patterns/pattern-tasks.ts";
import { createAccountTurns } from "./account-turns.ts";

interface Task {
  name: PatternTaskName;
  input: unknown;
  timeoutMs: number;
  deadline: number;
  resolve(output: unknown): void;
  reject(error: Error): void;
}

interface Thread {
  worker: Worker;
  task: Task | null;
  timer: ReturnType<typeof setTimeout> | null;
  accountId: string | null;
}

const entry = new URL("./pattern-thread.ts", import.meta.url);

export function createPatternThreads(settings: { threads: number; logger: Logger }): PatternWork {
  const turns = createAccountTurns<Task>();
  let closing = false;

  function start(): Thread {
    const thread: Thread = { worker: new Worker(entry), task: null, timer: null, accountId: null };
    thread.worker.on("message", (message: { output?: unknown; error?: string }) => {
      const task = finish(thread);
      if (message.error !== undefined) task?.reject(new Error(`pattern thread: ${message.error}`));
      else task?.resolve(message.output);
      dispatch();
    });
    thread.worker.on("error", (error) => {
      settings.logger.error({ err: error }, "pattern thread failed");
      finish(thread)?.reject(new Error("pattern thread failed", { cause: error }));
    });
    thread.worker.on("exit", () => {
      finish(thread)?.reject(new Error("pattern thread exited"));
      // A thread that died by itself is replaced here; one ended at a deadline already was.
      if (threads.includes(thread) && !closing) replace(thread);
    });
    return thread;
  }

  function replace(thread: Thread) {
    threads[threads.indexOf(thread)] = start();
    void thread.worker.terminate();
    dispatch();
  }

  function finish(thread: Thread): Task | null {
    const task = thread.task;
    if (thread.timer) clearTimeout(thread.timer);
    if (thread.accountId !== null) turns.finished(thread.accountId);
    thread.task = null;
    thread.timer = null;
    thread.accountId = null;
    return task;
  }

  /** The next task whose turn it is and whose deadline has not passed. */
  function nextTask(): { accountId: string; task: Task } | null {
    for (let next = turns.take(); next !== null; next = turns.take()) {
      const { accountId, item: task } = next;
      if (Date.now() < task.deadline) return { accountId, task };
      turns.finished(accountId);
      task.reject(new PatternTimeout(task.name, task.timeoutMs));
    }
    return null;
  }

  function dispatch() {
    if (turns.waiting && threads.length < capacity && threads.every((thread) => thread.task !== null))
      threads.push(start());
    for (const thread of threads) {
      if (thread.task !== null) continue;
      const next = nextTask();
      if (next === null) return;
      const { accountId, task } = next;
      thread.task = task;
      thread.accountId = accountId;
      thread.timer = setTimeout(() => {
        const late = finish(thread);
        late?.reject(new PatternTimeout(late.name, late.timeoutMs));
        // terminate() ends the match mid-run; the thread is replaced before it has exited.
        replace(thread);
      }, task.deadline - Date.now());
      thread.worker.postMessage({ name: task.name, input: task.input });
    }
  }

  const capacity = Math.max(1, settings.threads);
  const threads: Thread[] = [];

  return {
    run<Name extends PatternTaskName>(
      accountId: string,
      name: Name,
      input: PatternTaskInput<Name>,
      timeoutMs: number,
    ): Promise<PatternTaskOutput<Name>> {
      if (closing) return Promise.reject(new Error("pattern threads are closed"));
      return new Promise((resolve, reject) => {
        const task: Task = {
          name,
          input,
          timeoutMs,
          deadline: Date.now() + timeoutMs,
          resolve: resolve as (output: unknown) => void,
          reject,
        };
        turns.enqueue(accountId, task);
        dispatch();
      });
    },
    async close() {
      closing = true;
      for (const task of turns.drain()) task.reject(new Error("pattern threads are closed"));
      await Promise.all(threads.map((thread) => thread.worker.terminate()));
    },
  };
}
