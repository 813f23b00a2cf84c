/**
 * The background-process tools as an agent meets them, through the SDK's own client over HTTP and
 * over stdio (`cairn mcp serve`) against a live server with real local sandboxes: in the
 * `sandbox` profile, not the `memory` one; start, output from next_offset, input with eof,
 * wait, list and stop; a failure as an isError result with the REST envelope.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAccount,
  type LiveServer,
  processToolNames,
  startLiveServer,
  structured,
  transports,
} from "./mcp-harness.ts";

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer();
});
afterAll(() => server.close());

describe.each(transports)("background-process tools over $name", ({ connect }) => {
  let client: Client;
  beforeAll(async () => {
    const account = await createAccount(server.baseUrl);
    client = await connect(server.baseUrl, account.key, "sandbox");
  });
  afterAll(() => client.close());

  it("are in the sandbox profile with their arguments", async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of processToolNames) expect(byName.has(name), name).toBe(true);
    const argumentsOf = (name: string) => Object.keys(byName.get(name)?.inputSchema.properties ?? {}).sort();
    expect(argumentsOf("process_start")).toEqual([
      "command",
      "description",
      "max_runtime_seconds",
      "session_id",
    ]);
    expect(argumentsOf("process_output")).toEqual([
      "keep",
      "max_bytes",
      "process_id",
      "session_id",
      "since_offset",
      "wait_seconds",
    ]);
    expect(byName.get("process_output")?.annotations).toMatchObject({ readOnlyHint: true });
  });

  it("starts a process, feeds its stdin, reads its output and stops another", {
    timeout: 120_000,
  }, async () => {
    const call = async <T>(name: string, args: Record<string, unknown>) =>
      structured<T>(await client.callTool({ name, arguments: args }), name);
    const { id: session_id } = await call<{ id: string }>("create_sandbox", {});
    const { process_id } = await call<{ process_id: string }>("process_start", {
      session_id,
      command: "cat; echo done >&2",
    });
    expect(await call("process_input", { session_id, process_id, data: "hi there\n", eof: true })).toEqual({
      bytes_written: 9,
      stdin_open: false,
    });
    expect(
      await call<{ status: string }>("process_wait", { session_id, process_id, timeout_seconds: 30 }),
    ).toMatchObject({ status: "exited", exit_code: 0 });
    const page = await call<{ stdout: string; stderr: string; next_offset: number }>("process_output", {
      session_id,
      process_id,
      since_offset: 0,
    });
    expect(page).toMatchObject({ stdout: "hi there\n", stderr: "done\n", next_offset: 14, truncated: false });
    const { process_id: sleeper } = await call<{ process_id: string }>("process_start", {
      session_id,
      command: "sleep 1000",
    });
    const { processes } = await call<{ processes: Array<{ process_id: string; status: string }> }>(
      "process_list",
      { session_id },
    );
    expect(processes.map((entry) => [entry.process_id, entry.status])).toEqual([
      [process_id, "exited"],
      [sleeper, "running"],
    ]);
    expect(await call("process_stop", { session_id, process_id: sleeper })).toMatchObject({
      status: "killed",
    });
    const ended = await client.callTool({
      name: "process_input",
      arguments: { session_id, process_id: sleeper, data: "x" },
    });
    expect(ended).toMatchObject({
      isError: true,
      structuredContent: { error: { code: "process_not_running" } },
    });
    await call("destroy_sandbox", { session_id });
  });
});
