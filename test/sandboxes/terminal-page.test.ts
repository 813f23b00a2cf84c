/**
 * The /terminal page in headless Chromium (docs/sandboxes.md#takeover-terminal): xterm.js served
 * by Cairn itself (no other origin is reachable: every other request is refused), opened with a
 * single-use token in the URL's fragment, types into the sandbox's shell and shows its answer.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../support/chromium.ts";
import type { TestPlatform } from "../support/platforms.ts";
import { serveOverNode } from "./preview-terminal-support.ts";
import { createSandboxClient, createSandboxPlatform, type SandboxClient } from "./sandbox-client.ts";

describe("the terminal page", () => {
  let test: TestPlatform;
  let client: SandboxClient;
  let served: Awaited<ReturnType<typeof serveOverNode>>;
  let browser: Browser;

  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite");
    client = await createSandboxClient(test);
    served = await serveOverNode(test);
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await test?.close();
  });

  it("opens the sandbox's shell in xterm.js and runs what is typed", { timeout: 90_000 }, async () => {
    const sessionId = (await client.createActive()).id;
    const minted = await client.sendJson<{ token: string }>(`/v1/sandboxes/${sessionId}/takeover-token`, {
      method: "POST",
      json: {},
    });
    expect(minted.status).toBe(201);
    const page = await browser.newPage();
    const foreign: string[] = [];
    await page.route("**/*", (route) => {
      if (route.request().url().startsWith(served.origin)) return route.continue();
      foreign.push(route.request().url());
      return route.abort();
    });
    await page.goto(`${served.origin}/terminal#sandbox=${sessionId}&token=${minted.body.token}`);
    await page.waitForSelector("body[data-state=open]");
    expect(page.url()).not.toContain(minted.body.token);
    await page.keyboard.type("echo browser-$((40+2))\n");
    await page.waitForFunction(
      () => {
        const buffer = (
          window as unknown as {
            cairnTerminal: {
              buffer: {
                active: {
                  length: number;
                  getLine(index: number): { translateToString(): string } | undefined;
                };
              };
            };
          }
        ).cairnTerminal.buffer.active;
        for (let index = 0; index < buffer.length; index++) {
          if (buffer.getLine(index)?.translateToString().includes("browser-42")) return true;
        }
        return false;
      },
      undefined,
      { timeout: 20_000 },
    );
    expect(foreign).toEqual([]);
    // The token was single-use: the same page opened again is refused.
    const again = await browser.newPage();
    await again.goto(`${served.origin}/terminal#sandbox=${sessionId}&token=${minted.body.token}`);
    await again.waitForSelector("body[data-state=closed]");
    expect(await again.evaluate(() => document.body.dataset.closeCode)).toBe("4401");
  });
});
