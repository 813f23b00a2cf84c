/**
 * The memory screen against a live server: the newest memories, search as you type, a memory
 * with its relations, and forget only after a yes.
 */
import { CairnApiError, type CairnClient } from "cairn-client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, startLiveServer } from "../../test/mcp/mcp-harness.ts";
import { signUpWithKey } from "../../test/support/processes.ts";
import {
  keys,
  liveTestTimeoutMs,
  press,
  type RenderedApp,
  renderApp,
  type,
  waitForFrame,
} from "../../test/tui/ink-harness.ts";

let server: LiveServer;
let app: RenderedApp | undefined;

beforeAll(async () => {
  server = await startLiveServer({ SVC_AUTH_RATE_LIMIT_PER_MINUTE: "100" });
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  app?.unmount();
  app = undefined;
});

async function freshApp(): Promise<{ app: RenderedApp; client: CairnClient }> {
  const account = await signUpWithKey(server.baseUrl);
  const rendered = renderApp(server.baseUrl, account.key);
  app = rendered.app;
  return rendered;
}

describe("the memory screen", () => {
  it(
    "lists the newest memories, then narrows them as the query is typed",
    async () => {
      const { app, client } = await freshApp();
      await client.remember("The deploy script lives in ops/deploy.sh");
      await client.remember("Alice prefers tabs over spaces", { kind: "preference", scope: "team" });
      await client.remember("Always lint before pushing", { kind: "instruction" });
      await press(app, "3");
      const recent = await waitForFrame(app, "3 most recent");
      expect(recent).toMatch(/preference\s+\[team\] Alice prefers tabs over spaces/);
      // The longest kind keeps a space before the text.
      expect(recent).toMatch(/instruction\s+Always lint before pushing/);
      expect(recent).toMatch(/fact\s+The deploy script lives in ops\/deploy\.sh/);

      await press(app, "/");
      await waitForFrame(app, "esc done");
      await type(app, "deploy");
      const found = await waitForFrame(app, /Search: deploy[\s\S]*found/);
      expect(found).toContain("The deploy script lives in ops/deploy.sh");
      // While typing, keys are text: "q" and "2" go into the query instead of quitting or switching.
      await type(app, " q2");
      await waitForFrame(app, "Search: deploy q2");
      await press(app, keys.backspace, keys.backspace, keys.backspace);
      await waitForFrame(app, (frame) => frame.includes("Search: deploy") && !frame.includes("deploy q"));
    },
    liveTestTimeoutMs,
  );

  it(
    "shows a memory with its relations, and forgets it only after y",
    async () => {
      const { app, client } = await freshApp();
      const older = await client.remember("The deploy script lives in ops/deploy.sh");
      const newer = await client.remember("The deploy script lives in ops/deploy.sh and needs bash 5");
      const { relations } = await client.memoryRelations(newer.id);
      expect(relations.length).toBeGreaterThan(0);

      await press(app, "3");
      await waitForFrame(app, "2 most recent");
      await press(app, "/");
      await type(app, "bash 5");
      await waitForFrame(
        app,
        /found[\s\S]*› fact\s+The deploy script lives in ops\/deploy\.sh and needs bash 5/,
      );
      await press(app, keys.enter);
      const detail = await waitForFrame(app, "Relations (");
      expect(detail).toContain(newer.id);
      expect(detail).toContain(`${relations[0].relation_type}`);
      expect(detail).toMatch(/→ \w+ \d\.\d\d The deploy script lives in ops\/deploy\.sh$/m);

      await press(app, "f");
      await waitForFrame(app, 'Forget "The deploy script lives in ops/deploy.sh and needs bash 5"? (y/n)');
      await press(app, "n");
      await waitForFrame(app, (frame) => !frame.includes("(y/n)") && frame.includes("Relations ("));
      expect((await client.getMemory(newer.id)).id).toBe(newer.id);

      await press(app, "f");
      await waitForFrame(app, "(y/n)");
      await press(app, "y");
      await waitForFrame(app, (frame) => frame.includes("Search: bash 5") && !frame.includes("needs bash 5"));
      const gone = await client.getMemory(newer.id).catch((error: unknown) => error);
      expect(gone).toBeInstanceOf(CairnApiError);
      expect((gone as CairnApiError).code).toBe("memory_not_found");
      expect((await client.getMemory(older.id)).id).toBe(older.id);
    },
    liveTestTimeoutMs,
  );

  it(
    "cuts a long memory so its facts and relations stay on screen",
    async () => {
      const { app, client } = await freshApp();
      const lines = Array.from({ length: 80 }, (_, index) => `runbook step ${index + 1}: check the queue`);
      const long = await client.remember(lines.join("\n"), { kind: "note" });
      await press(app, "3");
      const listed = await waitForFrame(app, "1 most recent");
      // In the list it is one row, its line breaks turned into spaces.
      expect(listed).toMatch(/› note\s+runbook step 1: check the queue runbook step 2: check/);
      expect(listed).not.toContain("runbook step 2: check the queue\n");
      await press(app, keys.enter);
      const detail = await waitForFrame(app, "Relations (0)");
      expect(detail).toContain(`id ${long.id}`);
      expect(detail).toContain("runbook step 1: check the queue");
      expect(detail).not.toContain("runbook step 80");
      expect(detail).toMatch(/…/);
    },
    liveTestTimeoutMs,
  );

  it(
    "says why when the server refuses the key",
    async () => {
      const { app } = { app: renderApp(server.baseUrl, "cairn_notarealkeynotarealkeynotarealkeyab").app };
      try {
        await press(app, "3");
        await waitForFrame(app, /Error: .*\[invalid_api_key\]/);
      } finally {
        app.unmount();
      }
    },
    liveTestTimeoutMs,
  );
});
