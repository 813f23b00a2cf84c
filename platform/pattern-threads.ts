/**
 * Pattern tasks (core/ports/pattern-work.ts) on worker threads: the CPU a tenant's pattern,
 * file sizes, file names or command length make the server spend is spent off the event loop
 * that serves every account. Accounts take turns: each has its own queue, and a free thread
 * takes the next task of the account with the fewest tasks running, among equals the one served
 * longest ago, so one account's eight clients queue behind each other, not in front of a second
 * account. A task still running at its deadline is ended
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
  const queues = new Map<string, Task[]>();
  const running = new Map<string, number>();
  // When each account last had a task started (a counter, not a time).
  const lastServed = new Map<string, number>();
  let served = 0;
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
    if (thread.accountId !== null) forgetIdle(thread.accountId, (running.get(thread.accountId) ?? 1) - 1);
    thread.task = null;
    thread.timer = null;
    thread.accountId = null;
    return task;
  }

  // An account with nothing running or queued is forgotten: the maps hold only accounts in play.
  function forgetIdle(accountId: string, stillRunning: number) {
    if (stillRunning > 0) running.set(accountId, stillRunning);
    else running.delete(accountId);
    if (stillRunning === 0 && !queues.has(accountId)) lastServed.delete(accountId);
  }

  /** The account whose turn it is: fewest tasks running, then served longest ago. */
  function nextAccount(): string | null {
    let best: string | null = null;
    for (const accountId of queues.keys()) {
      if (best === null) best = accountId;
      else {
        const order =
          (running.get(accountId) ?? 0) - (running.get(best) ?? 0) ||
          (lastServed.get(accountId) ?? -1) - (lastServed.get(best) ?? -1);
        if (order < 0) best = accountId;
      }
    }
    return best;
  }

  function nextTask(): { accountId: string; task: Task } | null {
    for (let accountId = nextAccount(); accountId !== null; accountId = nextAccount()) {
      const queue = queues.get(accountId) as Task[];
      const task = queue.shift() as Task;
      if (queue.length === 0) queues.delete(accountId);
      if (Date.now() < task.deadline) return { accountId, task };
      task.reject(new PatternTimeout(task.name, task.timeoutMs));
    }
    return null;
  }

  function dispatch() {
    if (queues.size > 0 && threads.length < capacity && threads.every((thread) => thread.task !== null))
      threads.push(start());
    for (const thread of threads) {
      if (thread.task !== null) continue;
      const next = nextTask();
      if (next === null) return;
      const { accountId, task } = next;
      thread.task = task;
      thread.accountId = accountId;
      running.set(accountId, (running.get(accountId) ?? 0) + 1);
      lastServed.set(accountId, served++);
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
        const queue = queues.get(accountId);
        if (queue) queue.push(task);
        else queues.set(accountId, [task]);
        dispatch();
      });
    },
    async close() {
      closing = true;
      for (const queue of queues.values())
        for (const task of queue) task.reject(new Error("pattern threads are closed"));
      queues.clear();
      await Promise.all(threads.map((thread) => thread.worker.terminate()));
    },
  };
}
