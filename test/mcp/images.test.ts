/**
 * The custom-image tools as an agent meets them, through the SDK's own client over HTTP and over
 * stdio (`cairn mcp serve`) against a live server with the real local builder: their arguments
 * and defaults, a pinned npm package built through the egress proxy (this machine resolves the
 * registry to a documentation-range address, so private egress is allowed here) and run in a
 * sandbox started from the image, an unpinned one
 * refused as an isError result with the REST envelope, delete's answer, and the four tools gone
 * when SVC_IMAGE_BUILDER_ENABLED=false.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  builtToolNames,
  connectHttp,
  createAccount,
  type LiveServer,
  startLiveServer,
  structured,
  transports,
} from "./mcp-harness.ts";

const imageTools = [
  "create_sandbox_image",
  "get_sandbox_image",
  "list_sandbox_images",
  "delete_sandbox_image",
];

interface ImageOut {
  id: string;
  status: string;
  digest: string | null;
  npm_packages: string[];
  failure_reason: string | null;
  build_log_tail: string | null;
}

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer({ SVC_ALLOW_PRIVATE_EGRESS: "true" });
});
afterAll(() => server.close());

describe.each(transports)("image tools over $name", ({ connect }) => {
  let client: Client;
  beforeAll(async () => {
    const account = await createAccount(server.baseUrl);
    client = await connect(server.baseUrl, account.key);
  });
  afterAll(() => client.close());

  it("lists the four tools with their documented arguments", async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const argumentsOf = (name: string) => Object.keys(byName.get(name)?.inputSchema.properties ?? {}).sort();
    expect(argumentsOf("create_sandbox_image")).toEqual([
      "apt_packages",
      "base",
      "label",
      "npm_packages",
      "python_packages",
    ]);
    expect(byName.get("create_sandbox_image")?.inputSchema.properties?.base).toMatchObject({
      default: "default",
    });
    expect(argumentsOf("get_sandbox_image")).toEqual(["image_id"]);
    expect(argumentsOf("list_sandbox_images")).toEqual([]);
    expect(argumentsOf("delete_sandbox_image")).toEqual(["image_id"]);
  });

  it("builds a pinned npm package, gets and lists it, refuses an unpinned one, and deletes it", async () => {
    const created = structured<{ id: string; status: string }>(
      await client.callTool({
        name: "create_sandbox_image",
        arguments: { npm_packages: ["is-number==7.0.0"] },
      }),
      "create_sandbox_image",
    );
    expect(["queued", "completed"]).toContain(created.status);
    let image: ImageOut;
    for (;;) {
      image = structured<ImageOut>(
        await client.callTool({ name: "get_sandbox_image", arguments: { image_id: created.id } }),
        "get_sandbox_image",
      );
      if (image.status === "completed" || image.status === "failed") break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(image, image.build_log_tail ?? "").toMatchObject({
      status: "completed",
      digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      npm_packages: ["is-number==7.0.0"],
    });
    const listed = structured<{ items: Array<{ id: string }> }>(
      await client.callTool({ name: "list_sandbox_images", arguments: {} }),
      "list_sandbox_images",
    );
    expect(listed.items.map((item) => item.id)).toContain(created.id);

    const unpinned = await client.callTool({
      name: "create_sandbox_image",
      arguments: { npm_packages: ["is-number"] },
    });
    expect(unpinned).toMatchObject({
      isError: true,
      structuredContent: {
        error: { code: "validation_error", details: [{ loc: ["arguments", "npm_packages", "0"] }] },
      },
    });

    // A sandbox started from the image runs the package it holds.
    const sandbox = structured<{ id: string }>(
      await client.callTool({ name: "create_sandbox", arguments: { image_id: created.id } }),
      "create_sandbox",
    );
    const ran = structured<{ exit_code: number; stdout: string; stderr: string }>(
      await client.callTool({
        name: "exec",
        arguments: { session_id: sandbox.id, command: "node -e \"console.log(require('is-number')(5))\"" },
      }),
      "exec",
    );
    expect(ran, ran.stderr).toMatchObject({ exit_code: 0, stdout: "true\n" });
    structured(
      await client.callTool({ name: "destroy_sandbox", arguments: { session_id: sandbox.id } }),
      "destroy_sandbox",
    );

    const deleted = structured(
      await client.callTool({ name: "delete_sandbox_image", arguments: { image_id: created.id } }),
      "delete_sandbox_image",
    );
    expect(deleted).toEqual({ status: "deleted", id: created.id });
  }, 120_000);
});

describe("with SVC_IMAGE_BUILDER_ENABLED=false", () => {
  let off: LiveServer;
  beforeAll(async () => {
    off = await startLiveServer({ SVC_IMAGE_BUILDER_ENABLED: "false" });
  });
  afterAll(() => off.close());

  it("drops the four image tools and keeps the rest", async () => {
    const account = await createAccount(off.baseUrl);
    const client = await connectHttp(off.baseUrl, account.key);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect([...names].sort()).toEqual(builtToolNames.filter((name) => !imageTools.includes(name)).sort());
      // A tool the server does not offer is unknown to it: a protocol error, not a failed call.
      await expect(client.callTool({ name: "create_sandbox_image", arguments: {} })).rejects.toMatchObject({
        code: -32602,
      });
      const rest = await fetch(`${off.baseUrl}/v1/images`, {
        headers: { Authorization: `Bearer ${account.key}` },
      });
      expect(rest.status).toBe(404);
    } finally {
      await client.close();
    }
  });
});
