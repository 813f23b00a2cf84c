/**
 * The `todo` plugin: a task list per account that an agent keeps across sessions and sandboxes.
 * `todo.add` notes a task, `todo.list` shows the open ones (or all), `todo.done` closes one. Tasks
 * live in the plugin's own key-value store (one key per task), and the three tools share one
 * rate-limit bucket, `todo_ops`, 60 calls a minute unless the operator sets
 * SVC_PLUGIN_TODO_TODO_OPS_RATE_LIMIT_PER_MINUTE.
 */
import { definePlugin, defineTool, ServiceError, z } from "../../../core/plugin.ts";

const bucket = { name: "todo_ops", perMinute: 60 };
/** Open and done tasks an account may hold; past it, add asks for old ones to be cleared. */
const maxTasks = 500;

const task = z.object({
  id: z.string(),
  text: z.string(),
  done: z.boolean(),
  created_at: z.string(),
  done_at: z.string().nullable(),
});
type Task = z.output<typeof task>;

const taskKey = (id: string) => `task:${id}`;

/** Ids sort by creation: the time in base 36, fixed width, then a random tail. */
function newTaskId(now: Date): string {
  const time = now.getTime().toString(36).padStart(9, "0");
  return `t${time}${crypto.randomUUID().replaceAll("-", "").slice(0, 6)}`;
}

const add = defineTool({
  name: "add",
  title: "Add a task",
  description:
    "Note a task to do later in this account's task list, which outlives sandboxes and sessions. Returns the task with its id; call todo.done with the id when it is finished.",
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  input: z.object({
    text: z.string().trim().min(1).max(500).describe("What to do, in one line"),
  }),
  output: task,
  bucket,
  async handler(context, input) {
    const open = await context.store.list({ prefix: "task:", limit: maxTasks });
    if (open.length >= maxTasks) {
      throw new ServiceError(
        "validation_error",
        `The task list holds ${maxTasks} tasks; finish or clear some`,
      );
    }
    const now = context.now();
    const created: Task = {
      id: newTaskId(now),
      text: input.text,
      done: false,
      created_at: now.toISOString(),
      done_at: null,
    };
    await context.store.set(taskKey(created.id), created);
    return created;
  },
});

const list = defineTool({
  name: "list",
  title: "List tasks",
  description:
    "List this account's tasks, oldest first: the open ones, or all with include_done. Call it at the start of a task to pick up what an earlier session left to do.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    include_done: z.boolean().default(false).describe("Also list finished tasks"),
  }),
  output: z.object({ tasks: z.array(task) }),
  bucket,
  async handler(context, input) {
    const entries = await context.store.list<Task>({ prefix: "task:", limit: maxTasks });
    const tasks = entries.map((entry) => entry.value).filter((item) => input.include_done || !item.done);
    return { tasks };
  },
});

const done = defineTool({
  name: "done",
  title: "Finish a task",
  description: "Mark a task of this account's list as done, by the id todo.add or todo.list gave.",
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    id: z.string().min(1).max(64).describe("The task's id"),
  }),
  output: task,
  bucket,
  async handler(context, input) {
    const found = await context.store.get<Task>(taskKey(input.id));
    if (!found) throw new ServiceError("not_found", "No such task");
    if (found.done) return found;
    const finished: Task = { ...found, done: true, done_at: context.now().toISOString() };
    await context.store.set(taskKey(input.id), finished);
    return finished;
  },
});

export default definePlugin({ name: "todo", version: "1.0.0", tools: [add, list, done] });
