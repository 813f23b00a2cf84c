/**
 * /docs is Swagger UI from the swagger-ui-dist package, served by the server itself: every file the
 * page references answers with its content type, nothing points off-host, and headless Chromium
 * renders the operations of /v1/openapi.json without a request leaving the server.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, startLiveServer } from "../mcp/mcp-harness.ts";
import { launchChromium } from "../support/chromium.ts";
import { createTestPlatform, type TestPlatform } from "../support/platforms.ts";

const expectedTypes: Record<string, RegExp> = {
  css: /^text\/css/,
  js: /^text\/javascript/,
  png: /^image\/png$/,
};

describe("/docs", () => {
  let test: TestPlatform;
  beforeAll(async () => {
    test = await createTestPlatform("sqlite");
  });
  afterAll(() => test.close());

  it("serves every file the page references, with its content type, from this server", async () => {
    const response = await test.request("/docs");
    expect(response.status).toBe(200);
    const page = await response.text();
    // Any absolute URL at all would be a request off this server.
    expect(page).not.toMatch(/(https?:)?\/\/[a-z0-9]/i);
    const references = [...page.matchAll(/(?:href|src)="([^"]+)"/g)].map((match) => match[1]);
    expect(references.length).toBeGreaterThanOrEqual(4);
    for (const reference of references) {
      expect(reference).toMatch(/^\/docs\/assets\/[a-z0-9.-]+$/);
      const asset = await test.request(reference);
      expect(asset.status, reference).toBe(200);
      const extension = reference.split(".").at(-1) as string;
      expect(asset.headers.get("content-type"), reference).toMatch(expectedTypes[extension]);
      expect((await asset.arrayBuffer()).byteLength, reference).toBeGreaterThan(100);
    }
    const initializer = await (await test.request("/docs/assets/initializer.js")).text();
    expect(initializer).toContain('fetch("/v1/openapi.json")');
    expect(initializer).toContain("validatorUrl: null");
  });

  it("serves only the viewer's files from the package", async () => {
    for (const path of [
      "/docs/assets/package.json",
      "/docs/assets/index.html",
      "/docs/assets/..%2F..%2Fpackage.json",
      "/docs/assets/constructor",
    ]) {
      expect((await test.request(path)).status, path).toBe(404);
    }
  });
});

describe("/docs in a browser", () => {
  let server: LiveServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startLiveServer();
    browser = await launchChromium();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("renders the operations with every request answered by the server", async () => {
    const tab = await browser.newPage();
    const requests: string[] = [];
    const failures: string[] = [];
    tab.on("request", (request) => requests.push(request.url()));
    tab.on("requestfailed", (request) => failures.push(request.url()));
    tab.on("pageerror", (error) => failures.push(error.message));
    await tab.goto(`${server.baseUrl}/docs`);
    await tab.locator(".opblock-summary-path", { hasText: "/v1/auth/signup" }).first().waitFor({
      timeout: 60_000,
    });
    expect(await tab.locator(".opblock").count()).toBeGreaterThan(30);
    // "Try it out" calls the server that served the page, not the document's example server.
    expect(await tab.locator(".servers select option").allTextContents()).toEqual([server.baseUrl]);
    expect(failures).toEqual([]);
    expect(requests).toContain(`${server.baseUrl}/v1/openapi.json`);
    expect(
      requests.filter((url) => !url.startsWith(`${server.baseUrl}/`) && !url.startsWith("data:")),
    ).toEqual([]);
  }, 90_000);
});
