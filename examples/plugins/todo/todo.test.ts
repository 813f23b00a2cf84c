/** The todo plugin in a real platform (SQLite): add, list, done, per account, on its own bucket. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAccountWithKey,
  createTestPlatform,
  type TestPlatform,
} from "../../../test/support/platforms.ts";

describe("the todo plugin", () => {
  let test: TestPlatform;
  let key: string;
  let otherKey: string;
  beforeAll(async () => {
    test = await createTestPlatform("sqlite", { environment: { SVC_PLUGINS: import.meta.dirname } });
    key = (await createAccountWithKey(test)).key;
    otherKey = (await createAccountWithKey(test)).key;
  });
  afterAll(() => test?.close());

  const call = async (tool: string, json: unknown, credential = key) => {
    const response = await test.request(`/v1/plugins/todo/${tool}`, { method: "POST", json, credential });
    // biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field; the assertions check their shape.
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  };

  it("adds tasks, lists the open ones oldest first, and finishes one", async () => {
    const first = await call("add", { text: "Write the migration" });
    const second = await call("add", { text: "  Review the migration  " });
    expect(first.status).toBe(200);
    expect(first.headers.get("X-RateLimit-Limit")).toBe("60");
    expect(second.body.text).toBe("Review the migration");
    const open = await call("list", {});
    expect(open.body.tasks.map((task: { text: string }) => task.text)).toEqual([
      "Write the migration",
      "Review the migration",
    ]);
    const done = await call("done", { id: first.body.id });
    expect(done.body).toMatchObject({ id: first.body.id, done: true });
    expect(done.body.done_at).not.toBeNull();
    expect((await call("list", {})).body.tasks.map((task: { id: string }) => task.id)).toEqual([
      second.body.id,
    ]);
    const all = await call("list", { include_done: true });
    expect(all.body.tasks).toHaveLength(2);
    // Finishing twice changes nothing.
    expect((await call("done", { id: first.body.id })).body).toEqual(done.body);
  });

  it("keeps each account's list its own", async () => {
    const mine = await call("add", { text: "Mine alone" });
    expect((await call("list", { include_done: true }, otherKey)).body.tasks).toEqual([]);
    const taken = await call("done", { id: mine.body.id }, otherKey);
    expect(taken.status).toBe(404);
    expect(taken.body.error.code).toBe("not_found");
  });

  it("refuses an empty task", async () => {
    const empty = await call("add", { text: "   " });
    expect(empty.status).toBe(422);
    expect(empty.body.error.details[0].loc).toEqual(["body", "text"]);
  });
});
