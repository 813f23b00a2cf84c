/**
 * The volume and MCP-connection tools as an agent meets them, through the SDK's own client over
 * HTTP and over stdio (`cairn mcp serve`): their arguments and defaults, results, failures as
 * isError results with the REST envelope, and the volume tools gone when SVC_VOLUMES_ENABLED=false.
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

const volumeTools = [
  "create_sandbox_volume",
  "get_sandbox_volume",
  "list_sandbox_volumes",
  "delete_sandbox_volume",
];
const connectionTools = ["create_mcp_connection", "list_mcp_connections", "delete_mcp_connection"];

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer();
});
afterAll(() => server.close());

describe.each(transports)("volume and connection tools over $name", ({ connect }) => {
  let client: Client;
  beforeAll(async () => {
    const account = await createAccount(server.baseUrl);
    client = await connect(server.baseUrl, account.key);
  });
  afterAll(() => client.close());

  it("lists the seven tools with their documented arguments", async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of [...volumeTools, ...connectionTools]) expect(byName.has(name), name).toBe(true);
    const argumentsOf = (name: string) => Object.keys(byName.get(name)?.inputSchema.properties ?? {}).sort();
    expect(argumentsOf("create_sandbox_volume")).toEqual(["label", "size_gb"]);
    expect(byName.get("create_sandbox_volume")?.inputSchema.properties?.size_gb).toMatchObject({
      default: 1,
    });
    expect(argumentsOf("get_sandbox_volume")).toEqual(["volume_id"]);
    expect(argumentsOf("list_sandbox_volumes")).toEqual([]);
    expect(argumentsOf("delete_sandbox_volume")).toEqual(["volume_id"]);
    expect(argumentsOf("create_mcp_connection")).toEqual(["catalog_id", "label"]);
    expect(argumentsOf("list_mcp_connections")).toEqual([]);
    expect(argumentsOf("delete_mcp_connection")).toEqual(["connection_id"]);
    expect(argumentsOf("create_sandbox")).toEqual(
      expect.arrayContaining(["mcp_connection_names", "volume_mounts", "image_id"]),
    );
    // Destructive is MCP's default, so only the other hints are sent (openWorld is left to its default).
    expect(byName.get("delete_sandbox_volume")?.annotations).toEqual({ idempotentHint: true });
    expect(byName.get("list_mcp_connections")?.annotations).toMatchObject({ readOnlyHint: true });
  });

  it("creates a volume of 1 GB by default, gets, lists and deletes it", async () => {
    const created = structured<{ id: string; label: string | null; status: string }>(
      await client.callTool({ name: "create_sandbox_volume", arguments: { label: "cache" } }),
      "create_sandbox_volume",
    );
    expect(created).toMatchObject({ label: "cache", status: "queued" });
    const got = structured<{ id: string; size_gb: number; status: string }>(
      await client.callTool({ name: "get_sandbox_volume", arguments: { volume_id: created.id } }),
      "get_sandbox_volume",
    );
    expect(got).toMatchObject({ id: created.id, size_gb: 1, status: "ready", pvc_name: null });
    const listed = structured<{ items: Array<{ id: string }> }>(
      await client.callTool({ name: "list_sandbox_volumes", arguments: {} }),
      "list_sandbox_volumes",
    );
    expect(listed.items.map((volume) => volume.id)).toEqual([created.id]);
    const badMount = await client.callTool({
      name: "create_sandbox",
      arguments: { volume_mounts: { [created.id]: "/workspace/cache" } },
    });
    expect(badMount.isError).toBe(true);
    expect(badMount.structuredContent).toMatchObject({
      error: {
        code: "validation_error",
        details: [expect.objectContaining({ loc: ["arguments", "volume_mounts", created.id] })],
      },
    });
    const deleted = structured(
      await client.callTool({ name: "delete_sandbox_volume", arguments: { volume_id: created.id } }),
      "delete_sandbox_volume",
    );
    expect(deleted).toEqual({ status: "deleted", id: created.id });
    const gone = await client.callTool({ name: "get_sandbox_volume", arguments: { volume_id: created.id } });
    expect(gone).toMatchObject({ isError: true, structuredContent: { error: { code: "not_found" } } });
    expect(gone.content).toEqual([
      {
        type: "text",
        text: expect.stringMatching(/^Error get_sandbox_volume: .*\[not_found\] \(HTTP 404\)$/),
      },
    ]);
  });

  it("creates, lists and deletes an MCP connection; a taken label and an unknown name are isError results", async () => {
    const created = structured<{ id: string; host: string; last_used_at: string | null }>(
      await client.callTool({
        name: "create_mcp_connection",
        arguments: { label: "repo", catalog_id: "github" },
      }),
      "create_mcp_connection",
    );
    expect(created).toMatchObject({ host: "api.githubcopilot.com", last_used_at: null });
    const taken = await client.callTool({
      name: "create_mcp_connection",
      arguments: { label: "repo", catalog_id: "slack" },
    });
    expect(taken).toMatchObject({
      isError: true,
      structuredContent: { error: { code: "mcp_connection_label_taken" } },
    });
    const listed = structured<{ items: Array<{ id: string; label: string }> }>(
      await client.callTool({ name: "list_mcp_connections", arguments: {} }),
      "list_mcp_connections",
    );
    expect(listed.items).toEqual([expect.objectContaining({ id: created.id, label: "repo" })]);
    const unknown = await client.callTool({
      name: "create_sandbox",
      arguments: { mcp_connection_names: ["repo", "nope"] },
    });
    expect(unknown.isError).toBe(true);
    expect(unknown.content).toEqual([
      {
        type: "text",
        text: expect.stringMatching(
          /^Error create_sandbox: .*"nope".*\[mcp_connection_not_found\] \(HTTP 404\)$/,
        ),
      },
    ]);
    const deleted = structured(
      await client.callTool({ name: "delete_mcp_connection", arguments: { connection_id: created.id } }),
      "delete_mcp_connection",
    );
    expect(deleted).toEqual({ status: "deleted", id: created.id });
  });
});

describe("with SVC_VOLUMES_ENABLED=false", () => {
  let off: LiveServer;
  beforeAll(async () => {
    off = await startLiveServer({ SVC_VOLUMES_ENABLED: "false" });
  });
  afterAll(() => off.close());

  it("drops the four volume tools and keeps the rest", async () => {
    const account = await createAccount(off.baseUrl);
    const client = await connectHttp(off.baseUrl, account.key);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect([...names].sort()).toEqual(builtToolNames.filter((name) => !volumeTools.includes(name)).sort());
      // A tool the server does not offer is unknown to it: a protocol error, not a failed call.
      await expect(
        client.callTool({ name: "create_sandbox_volume", arguments: { size_gb: 1 } }),
      ).rejects.toMatchObject({ code: -32602 });
      const rest = await fetch(`${off.baseUrl}/v1/volumes`, {
        headers: { Authorization: `Bearer ${account.key}` },
      });
      expect(rest.status).toBe(404);
    } finally {
      await client.close();
    }
  });
});
