/**
 * The sessions screen against a live server with real sandboxes: create one, run commands and see
 * their output, browse and view its files, watch the account's gauges move, destroy it after a yes.
 */
import type { CairnClient } from "cairn-client";
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
let client: CairnClient | undefined;

beforeAll(async () => {
  server = await startLiveServer({ SVC_AUTH_RATE_LIMIT_PER_MINUTE: "100" });
});
afterAll(async () => {
  await server?.close();
});
afterEach(async () => {
  app?.unmount();
  app = undefined;
  // Whatever a failed test left running ends here.
  for (const session of (await client?.listSandboxes({ activeOnly: true })) ?? [])
    await client?.destroySandbox(session.id);
});

async function freshApp() {
  const account = await signUpWithKey(server.baseUrl);
  const rendered = renderApp(server.baseUrl, account.key);
  app = rendered.app;
  client = rendered.client;
  return rendered;
}

/** Opens the command line, types the command, runs it and waits until its exit shows. */
async function runCommand(app: RenderedApp, command: string, exitCode: number) {
  await press(app, keys.enter);
  await waitForFrame(app, "esc cancel");
  await type(app, command);
  await waitForFrame(app, `$ ${command}`);
  await press(app, keys.enter);
  return waitForFrame(app, `exit ${exitCode} ·`);
}

describe("the sessions screen", () => {
  it(
    "creates a session, runs commands, browses its files, and destroys it only after y",
    async () => {
      const { app, client } = await freshApp();
      await press(app, "2");
      await waitForFrame(app, "No active sessions. Press c to create one.");
      await press(app, "c");
      const listed = await waitForFrame(app, "1 active");
      const [session] = await client.listSandboxes({ activeOnly: true });
      expect(listed).toMatch(new RegExp(`› ${session.id}  tui  \\d\\d:\\d\\d–\\d\\d:\\d\\d UTC`));

      const output = await runCommand(app, "printf 'alpha\\nbeta\\n'; echo warned >&2; exit 4", 4);
      expect(output).toMatch(/alpha\n\s*beta\n\s*warned/);

      await runCommand(
        app,
        "mkdir -p src/lib && printf 'first line\\nsecond line\\n' > src/lib/notes.txt",
        0,
      );
      await press(app, "f");
      await waitForFrame(app, /Files in \/workspace\/\n[\s\S]*› src\//);
      await press(app, keys.enter);
      await waitForFrame(app, /Files in \/workspace\/src\/\n[\s\S]*› lib\//);
      await press(app, keys.enter);
      await waitForFrame(app, /› notes\.txt\s+23 B/);
      await press(app, keys.enter);
      const viewed = await waitForFrame(app, "/workspace/src/lib/notes.txt  (lines 1-2 of 2)");
      expect(viewed).toMatch(/first line\n\s*second line/);
      await press(app, keys.escape);
      await waitForFrame(app, "Files in /workspace/src/lib/");
      await press(app, keys.backspace);
      await waitForFrame(app, /Files in \/workspace\/src\/\n/);
      await press(app, keys.escape);
      await waitForFrame(app, "Press enter to run a command.");

      // The account screen counts the running session.
      await press(app, "1");
      await waitForFrame(app, /Concurrent sandboxes\s+█+░*\s+1 \/ \d+/);
      await press(app, "2");

      await press(app, "d");
      await waitForFrame(app, `Destroy session ${session.id}? (y/n)`);
      await press(app, "n");
      await waitForFrame(app, "Press enter to run a command.");
      expect((await client.getSandbox(session.id)).status).toBe("active");

      await press(app, "d");
      await waitForFrame(app, "(y/n)");
      await press(app, "y");
      await waitForFrame(app, "0 active");
      expect((await client.getSandbox(session.id)).status).toBe("destroyed");
    },
    liveTestTimeoutMs,
  );

  it(
    "shows the server's refusal of a command the account's allowlist does not allow",
    async () => {
      const { app, client } = await freshApp();
      await client.setAllowedCommands(["echo"]);
      await client.createSandbox({ label: "listed" });
      await press(app, "2");
      await waitForFrame(app, "1 active");
      await press(app, keys.enter);
      await waitForFrame(app, "esc cancel");
      await type(app, "ls /");
      await press(app, keys.enter);
      await waitForFrame(
        app,
        /\$ ls \/\s+failed\n\s*Error: ls is not in the command allowlist \[command_not_allowed\]/,
      );
    },
    liveTestTimeoutMs,
  );
});
