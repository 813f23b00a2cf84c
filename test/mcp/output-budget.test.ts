/**
 * MCP tools answer within a budget that fits an agent's context (issue 41) unless the client asks
 * for more, against a live server with real local sandboxes: tools/list shows the defaults and
 * the descriptions say so; a 1 MiB exec output comes back as 16 KiB of each end with the marker;
 * a larger max_output_bytes gets all of it; process_output keeps the newest output's head and
 * tail and names the offsets it cut.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHttp, createAccount, type LiveServer, startLiveServer, structured } from "./mcp-harness.ts";

let server: LiveServer;
let client: Client;
let sessionId: string;
const call = async <T>(name: string, args: Record<string, unknown>) =>
  structured<T>(await client.callTool({ name, arguments: args }), name);

beforeAll(async () => {
  server = await startLiveServer();
  const account = await createAccount(server.baseUrl);
  client = await connectHttp(server.baseUrl, account.key, "sandbox");
  sessionId = (await call<{ id: string }>("create_sandbox", {})).id;
}, 120_000);
afterAll(async () => {
  await client?.close();
  await server?.close();
});

interface ExecResult {
  stdout: string;
  stderr: string;
  truncated: boolean;
  stdout_omitted_bytes: number;
  stderr_omitted_bytes: number;
}

describe("output budgets over MCP", () => {
  it("lists the defaults and says so in the descriptions", async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const property = (tool: string, name: string) =>
      (byName.get(tool)?.inputSchema.properties as Record<string, { default?: unknown }> | undefined)?.[name];
    expect(property("exec", "max_output_bytes")).toMatchObject({ default: 16384, maximum: 1_048_576 });
    expect(property("exec", "keep")).toMatchObject({ default: "both", enum: ["head", "tail", "both"] });
    expect(property("view", "max_output_bytes")).toMatchObject({ default: 32768 });
    expect(property("view", "keep")).toMatchObject({ default: "head" });
    expect(property("process_output", "max_bytes")).toMatchObject({ default: 16384 });
    expect(property("process_output", "keep")).toMatchObject({ default: "both" });
    // The defaults are the schema's; the descriptions name the budget and the marker.
    expect(byName.get("exec")?.description).toContain("Output past max_output_bytes is cut, a marker");
    expect(byName.get("view")?.description).toContain("Text past max_output_bytes is cut, a marker");
    expect(byName.get("process_output")?.description).toContain("omitted_range naming what was cut");
  });

  it("cuts a 1 MiB exec output to the default budget with the marker", { timeout: 60_000 }, async () => {
    const command = "head -c 1048576 /dev/zero | tr '\\0' x; echo oops >&2";
    const cut = await call<ExecResult>("exec", { session_id: sessionId, command });
    expect([cut.truncated, cut.stdout_omitted_bytes, cut.stderr_omitted_bytes]).toEqual([
      true,
      1_048_576 - 16_384,
      0,
    ]);
    expect(cut.stdout).toBe(
      `${"x".repeat(8192)}\n… [cut 1,032,192 bytes of stdout (bytes 8,192–1,040,384); run again with a larger max_output_bytes or another keep, or send the output to a file and view it with a view_range] …\n${"x".repeat(8192)}`,
    );
    expect(cut.stderr).toBe("oops\n");
    const whole = await call<ExecResult>("exec", {
      session_id: sessionId,
      command,
      max_output_bytes: 1_048_576,
    });
    expect([whole.stdout.length, whole.truncated, whole.stdout_omitted_bytes]).toEqual([1_048_576, false, 0]);
  });

  it("views a 5 MB file within the default budget; asked for all of it, the 4 MiB result limit refuses", {
    timeout: 60_000,
  }, async () => {
    await call("exec", {
      session_id: sessionId,
      command: "yes 0123456789abcdef | head -c 5000000 > big.txt",
    });
    const viewed = await call<{
      content: string;
      truncated: boolean;
      omitted_bytes: number;
      omitted_lines: number[];
    }>("view", { session_id: sessionId, path: "big.txt" });
    expect([viewed.truncated, viewed.omitted_bytes, viewed.omitted_lines]).toEqual([
      true,
      5_000_000 - 32_768,
      [1928, 294118],
    ]);
    expect(viewed.content).toContain(
      "\n… [cut 4,967,232 bytes, in lines 1928–294118; view them with view_range [1928, 294118] or a larger max_output_bytes] …\n",
    );
    const refused = await client.callTool({
      name: "view",
      arguments: { session_id: sessionId, path: "big.txt", max_output_bytes: 5_000_000 },
    });
    expect(refused).toMatchObject({
      isError: true,
      structuredContent: {
        error: { code: "payload_too_large", remediation: expect.stringContaining("max_output_bytes") },
      },
    });
  });

  it("reads a process's newest output within the budget, naming the offsets cut", {
    timeout: 60_000,
  }, async () => {
    const { process_id } = await call<{ process_id: string }>("process_start", {
      session_id: sessionId,
      command: "seq 1 20000",
    });
    await call("process_wait", { session_id: sessionId, process_id, timeout_seconds: 30 });
    const page = await call<{
      stdout: string;
      next_offset: number;
      omitted_bytes: number;
      omitted_range: [number, number] | null;
    }>("process_output", { session_id: sessionId, process_id });
    // seq 1 20000 writes 108,894 bytes.
    expect(page.next_offset).toBe(108_894);
    expect(page.omitted_range).toEqual([8192, 108_894 - 8192]);
    expect(page.omitted_bytes).toBe(108_894 - 16_384);
    expect(page.stdout.endsWith("19999\n20000\n")).toBe(true);
    const middle = await call<{ stdout: string; next_offset: number }>("process_output", {
      session_id: sessionId,
      process_id,
      since_offset: 8192,
      max_bytes: 108_894 - 16_384,
      keep: "head",
    });
    expect(middle.next_offset).toBe(108_894 - 8192);
    const [head, rest] = page.stdout.split("\n… [");
    const tail = rest.split("] …\n")[1];
    expect(head + middle.stdout + tail).toBe(
      `${Array.from({ length: 20000 }, (_, index) => index + 1).join("\n")}\n`,
    );
  });
});
