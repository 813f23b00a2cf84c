/**
 * The TUI's frame against a live server: the account screen first, switching screens by number and
 * by tab, and a help bar that follows the screen and mode.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, startLiveServer } from "../../test/mcp/mcp-harness.ts";
import { signUpWithKey } from "../../test/support/processes.ts";
import {
  keys,
  liveTestTimeoutMs,
  press,
  type RenderedApp,
  renderApp,
  waitForFrame,
} from "../../test/tui/ink-harness.ts";

let server: LiveServer;
let app: RenderedApp | undefined;

beforeAll(async () => {
  server = await startLiveServer();
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  app?.unmount();
  app = undefined;
});

describe("the TUI's frame", () => {
  it(
    "opens on the account screen with the key's owner and usage gauges",
    async () => {
      const account = await signUpWithKey(server.baseUrl);
      app = renderApp(server.baseUrl, account.key).app;
      const frame = await waitForFrame(app, "Sandboxes created in total: 0");
      expect(frame).toContain(`Email       ${account.email}`);
      expect(frame).toMatch(/Sandbox hours this month\s+░+ 0\.00 \/ \d+ h/);
      expect(frame).toMatch(/Concurrent sandboxes\s+░+ 0 \/ \d+/);
      expect(frame).toMatch(/Sandbox ops this minute\s+[█░]+ \d+ \/ \d+ used/);
      expect(frame).toContain(server.baseUrl);
      expect(frame.split("\n").at(-1)).toBe("r reload  tab next  q quit");
    },
    liveTestTimeoutMs,
  );

  it(
    "switches screens by number and by tab, both ways, and the help bar follows",
    async () => {
      const account = await signUpWithKey(server.baseUrl);
      app = renderApp(server.baseUrl, account.key).app;
      await waitForFrame(app, "Account id");
      await press(app, keys.tab);
      let frame = await waitForFrame(app, "No active sessions");
      expect(frame).toContain("c new");
      await press(app, keys.tab);
      frame = await waitForFrame(app, "Search: press / to search");
      expect(frame).toContain("/ search");
      await press(app, keys.tab);
      await waitForFrame(app, "Account id");
      await press(app, "\u001B[Z"); // shift-tab goes back
      await waitForFrame(app, "Search: press / to search");
      await press(app, "2");
      await waitForFrame(app, "No active sessions");
      await press(app, "1");
      frame = await waitForFrame(app, "Account id");
      expect(frame).not.toContain("No active sessions");
    },
    liveTestTimeoutMs,
  );

  it(
    "without an API key, says so and how to log in, in the CLI's words",
    async () => {
      app = renderApp(server.baseUrl).app;
      await waitForFrame(
        app,
        /Error: .* \[missing_credentials\] — Hint: No API key yet: run\s+`cairn login`/,
      );
    },
    liveTestTimeoutMs,
  );

  // Keys written back to back reach Ink before React has re-rendered: they used to go to the
  // old mode (a "q" typed just after "/" quit the TUI; a command typed just after enter vanished).
  it(
    "sends keys typed straight after opening a text field into it, not to the screen before",
    async () => {
      const account = await signUpWithKey(server.baseUrl);
      const rendered = renderApp(server.baseUrl, account.key);
      app = rendered.app;
      await waitForFrame(app, "Account id");
      for (const key of ["3", "/", "q", "u", "x"]) app.stdin.write(key);
      await waitForFrame(app, "Search: qux");

      await rendered.client.createSandbox({ label: "typed" });
      // A lone escape is told from the start of an escape sequence only by a pause after it.
      await press(app, keys.escape);
      await waitForFrame(app, "/ search");
      app.stdin.write("2");
      await waitForFrame(app, "1 active");
      for (const key of [keys.enter, "e", "c", "h", "o", " ", "q", keys.enter]) app.stdin.write(key);
      await waitForFrame(app, /\$ echo q\s+exit 0/);
      for (const session of await rendered.client.listSandboxes({ activeOnly: true }))
        await rendered.client.destroySandbox(session.id);
    },
    liveTestTimeoutMs,
  );
});
