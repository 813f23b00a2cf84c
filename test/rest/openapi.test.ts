/**
 * The OpenAPI document covers every registry route, the tool routes and the raw file routes, and the committed
 * sdks/openapi.json is current.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { allOperations, version } from "../../core/index.ts";
import { createOpenApiDocument } from "../../transports/rest/openapi.ts";
import { httpOperations } from "../../transports/rest/operation-routes.ts";
import { createTestPlatform } from "../support/platforms.ts";

describe("OpenAPI", () => {
  const document = createOpenApiDocument(version);

  it("has every registry operation once, under its REST binding", () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        path,
        method,
        id: (operation as { operationId: string }).operationId,
      })),
    );
    expect(operations.map((operation) => operation.id).sort()).toEqual(
      [
        ...allOperations.map((tool) => tool.name),
        "call_tool",
        "list_tools",
        "download_file",
        "upload_file",
      ].sort(),
    );
    expect(document.paths["/v1/tools"]).toHaveProperty("get");
    expect(document.paths["/v1/tools/{name}"]).toHaveProperty("post");
    expect(Object.keys(document.paths["/v1/sandboxes/{session_id}/files/raw"]).sort()).toEqual([
      "get",
      "put",
    ]);
    for (const tool of httpOperations()) {
      const path = tool.http.path.replace(/:([a-z_]+)/g, "{$1}");
      expect(document.paths[path]?.[tool.http.method.toLowerCase()], tool.name).toBeDefined();
    }
  });

  it("is served at /v1/openapi.json", async () => {
    const test = await createTestPlatform("sqlite");
    try {
      const served = await (await test.request("/v1/openapi.json")).json();
      expect(served).toEqual(JSON.parse(JSON.stringify(document)));
    } finally {
      await test.close();
    }
  });

  it("sdks/openapi.json is not stale (run `npm run openapi` after changing an operation)", async () => {
    const committed = JSON.parse(await readFile(new URL("../../sdks/openapi.json", import.meta.url), "utf8"));
    expect(committed).toEqual(JSON.parse(JSON.stringify(document)));
  });
});
