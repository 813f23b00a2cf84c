/**
 * The TUI's frame against a live server: the account screen first, switching screens by number and
 * by tab, and a help bar that follows the screen and mode.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, startLiveServer } from "../../test/mcp/mcp-harness.ts";
import { signUpWithKey } from "../../test/support/processes.ts";
import { keys, press, type RenderedApp, renderApp, waitForFrame } from "../../test/tui/ink-harness.ts";

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
  it("opens on the account screen with the key's owner and usage gauges", async () => {
    const account = await signUpWithKey(server.baseUrl);
    app = renderApp(server.baseUrl, account.key).app;
    const frame = await waitForFrame(app, "Sandboxes created in total: 0");
    expect(frame).toContain(`Email       ${account.email}`);
    expect(frame).toMatch(/Sandbox hours this month\s+░+ 0\.00 \/ \d+ h/);
    expect(frame).toMatch(/Concurrent sandboxes\s+░+ 0 \/ \d+/);
    expect(frame).toMatch(/Sandbox ops used \(minute\)\s+[█░]+ \d+ \/ \d+ left/);
    expect(frame).toContain(server.baseUrl);
    expect(frame.split("\n").at(-1)).toBe("r reload  tab next  q quit");
  });

  it("switches screens by number and by tab, both ways, and the help bar follows", async () => {
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
  });
});
