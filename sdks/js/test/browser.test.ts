/**
 * The SDK in a real browser: Debian's headless Chromium (driven by playwright-core) loads a page
 * that imports the SDK's own source files — types stripped by Node as the page fetches them, no
 * bundler — and runs the conformance scenario against a live server that allows the page's origin
 * (SVC_CORS_ALLOWED_ORIGINS). Proves the SDK needs nothing but web-standard APIs.
 */
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { stripTypeScriptTypes } from "node:module";
import { join, resolve } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, startLiveServer } from "../../../test/mcp/mcp-harness.ts";
import { launchChromium } from "../../../test/support/chromium.ts";
import { freePort } from "../../../test/support/processes.ts";

const root = resolve(import.meta.dirname, "../../..");

const page = `<!doctype html><title>cairn-client</title><script type="module">
  import { runConformance } from "/js/test/conformance-runner.ts";
  const [baseUrl, scenario] = await Promise.all([
    new URLSearchParams(location.search).get("server"),
    fetch("/scenario.json").then((response) => response.text()),
  ]);
  window.conformance = await runConformance(baseUrl, scenario).catch((error) => ({ ok: false, lines: [String(error)] }));
</script>`;

/** Serves the page, the scenario, and sdks/js/** as JavaScript with the types stripped. */
function pageServer(): Server {
  return createServer(async (request, response) => {
    const path = new URL(request.url ?? "/", "http://page").pathname;
    if (path === "/") {
      response.writeHead(200, { "content-type": "text/html" }).end(page);
    } else if (path === "/scenario.json") {
      const scenario = await readFile(join(root, "test/conformance/scenario.json"));
      response.writeHead(200, { "content-type": "application/json" }).end(scenario);
    } else if (/^\/js\/(src|test)\/([\w-]+\/)?[\w-]+\.ts$/.test(path)) {
      const source = await readFile(join(root, "sdks", path), "utf8");
      response.writeHead(200, { "content-type": "text/javascript" }).end(stripTypeScriptTypes(source));
    } else {
      response.writeHead(404).end();
    }
  });
}

describe("cairn-client in a browser", () => {
  let server: LiveServer;
  let pages: Server;
  let browser: Browser;
  let pageOrigin: string;

  beforeAll(async () => {
    const port = await freePort();
    pageOrigin = `http://127.0.0.1:${port}`;
    pages = pageServer();
    await new Promise<void>((listening) => pages.listen(port, "127.0.0.1", listening));
    server = await startLiveServer({
      SVC_CORS_ALLOWED_ORIGINS: pageOrigin,
      SVC_AUTH_RATE_LIMIT_PER_MINUTE: "100",
    });
    browser = await launchChromium();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((closed) => pages?.close(closed));
  });

  it("runs the conformance scenario from the SDK's source", async () => {
    const tab = await browser.newPage();
    const errors: string[] = [];
    tab.on("pageerror", (error) => errors.push(error.message));
    await tab.goto(`${pageOrigin}/?server=${encodeURIComponent(server.baseUrl)}`);
    await tab.waitForFunction(() => "conformance" in window, undefined, { timeout: 120_000 });
    const result = (await tab.evaluate(
      () => (window as unknown as { conformance: unknown }).conformance,
    )) as {
      ok: boolean;
      lines: string[];
    };
    expect(errors).toEqual([]);
    expect(result.lines.join("\n")).not.toContain("FAIL");
    expect(result.ok).toBe(true);
    expect(result.lines.at(-1)).toBe("ok a destroyed sandbox reports it");
  }, 150_000);
});
