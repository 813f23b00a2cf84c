/**
 * Pattern tasks (core/ports/pattern-work.ts) on worker threads: the CPU a tenant's pattern,
 * file sizes, file names or command length make the server spend is spent off the event loop
 * that serves every account. Accounts take turns: each has its own queue, and a free thread
 * takes the next task of the next account in turn, so one account's eight clients queue behind
 * each other, not in front of a second account. A task still running at its deadline is ended
 * with its thread (a running match cannot be interrupted otherwise) and the thread replaced.
 * The threads lower their own scheduling priority, so the serving thread wins a busy core.
 */
import { Worker } from "node:worker_threads";
import { PatternTimeout, type PatternWork } from "../core/index.ts";
import type { Logger } from "../core/ports/logger.ts";
import type {
  PatternTaskInput,
  PatternTaskName,
  PatternTaskOutput,
} from "../core/sandboxes/patterns/pattern-tasks.ts";

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
}

const entry = new URL("./pattern-thread.ts", import.meta.url);

export function createPatternThreads(settings: { threads: number; logger: Logger }): PatternWork {
  const queues = new Map<string, Task[]>();
  // Accounts with queued tasks, in the order they get their next turn.
  const turns: string[] = [];
  let closing = false;

  function start(): Thread {
    const thread: Thread = { worker: new Worker(entry), task: null, timer: null };
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
      const index = threads.indexOf(thread);
      if (index >= 0 && !closing) {
        threads[index] = start();
        dispatch();
      }
    });
    return thread;
  }

  function finish(thread: Thread): Task | null {
    const task = thread.task;
    if (thread.timer) clearTimeout(thread.timer);
    thread.task = null;
    thread.timer = null;
    return task;
  }

  function nextTask(): Task | null {
    while (turns.length > 0) {
      const accountId = turns.shift() as string;
      const queue = queues.get(accountId) as Task[];
      const task = queue.shift() as Task;
      if (queue.length > 0) turns.push(accountId);
      else queues.delete(accountId);
      if (Date.now() < task.deadline) return task;
      task.reject(new PatternTimeout(task.name, task.timeoutMs));
    }
    return null;
  }

  function dispatch() {
    for (const thread of threads) {
      if (thread.task !== null) continue;
      const task = nextTask();
      if (task === null) return;
      thread.task = task;
      thread.timer = setTimeout(() => {
        const late = finish(thread);
        // terminate() ends the match mid-run; the exit handler starts the replacement.
        void thread.worker.terminate();
        late?.reject(new PatternTimeout(late.name, late.timeoutMs));
      }, task.deadline - Date.now());
      thread.worker.postMessage({ name: task.name, input: task.input });
    }
  }

  const threads = Array.from({ length: Math.max(1, settings.threads) }, start);

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
        const queue = queues.get(accountId);
        if (queue) queue.push(task);
        else {
          queues.set(accountId, [task]);
          turns.push(accountId);
        }
        dispatch();
      });
    },
    async close() {
      closing = true;
      for (const queue of queues.values())
        for (const task of queue) task.reject(new Error("pattern threads are closed"));
      queues.clear();
      turns.length = 0;
      await Promise.all(threads.map((thread) => thread.worker.terminate()));
    },
  };
}
