/**
 * Client path errors are 4xx, never 5xx (issue 7, finding 7), over REST on a real bubblewrap
 * sandbox: a component past the kernel's 255-byte NAME_MAX is 422 validation_error on every file
 * operation, checked where paths are parsed, before the runtime is asked. A directory holding
 * more entries than a listing may carry is a 422 too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  type ErrorBody,
  errorCode,
  type SandboxClient,
} from "./sandbox-client.ts";

/** One request per file operation that names `path`. */
function fileOperations(path: string): Array<[string, Record<string, unknown>]> {
  return [
    ["files", { path, content: "x" }],
    ["files/view", { path }],
    ["files/str-replace", { path, old_str: "x", new_str: "y" }],
    ["files/ls", { path }],
    ["files/glob", { pattern: "*", path }],
    ["files/grep", { pattern: "x", path }],
  ];
}

describe("file paths the kernel cannot take", () => {
  let test: TestPlatform;
  let client: SandboxClient;
  let sessionId: string;

  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite");
    client = await createSandboxClient(test);
    sessionId = (await client.createActive()).id;
  });
  afterAll(() => test.close());

  it("gives a refusal the runtime makes (a FIFO is not a file to read) the shape of every 422", async () => {
    const made = await client.sendJson(`/v1/sandboxes/${sessionId}/exec`, {
      method: "POST",
      json: { command: "mkfifo pipe" },
    });
    expect(made.status).toBe(200);
    const refused = await client.sendJson<ErrorBody>(`/v1/sandboxes/${sessionId}/files/view`, {
      method: "POST",
      json: { path: "pipe" },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({
      code: "validation_error",
      message: "Invalid request",
      details: [{ type: "value_error", loc: ["body", "path"], msg: "Not a regular file: /workspace/pipe" }],
    });
  });

  it("refuses to list a directory of more than 20,000 entries, with 422 naming path, and lists one of 20,000", async () => {
    const made = await client.sendJson<{ exit_code: number }>(`/v1/sandboxes/${sessionId}/exec`, {
      method: "POST",
      json: { command: "mkdir crowded && cd crowded && seq 1 20001 | xargs touch", timeout: 100 },
    });
    expect(made.body.exit_code).toBe(0);
    for (const operation of ["files/ls", "files/view"]) {
      const refused = await client.sendJson<ErrorBody>(`/v1/sandboxes/${sessionId}/${operation}`, {
        method: "POST",
        json: { path: "crowded" },
      });
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({
        code: "validation_error",
        details: [
          {
            loc: ["body", "path"],
            msg: expect.stringContaining("/workspace/crowded holds more than 20000 entries"),
          },
        ],
      });
    }
    await client.sendJson(`/v1/sandboxes/${sessionId}/exec`, {
      method: "POST",
      json: { command: "rm crowded/20001" },
    });
    const listed = await client.sendJson<{ entries: Array<{ path: string }> }>(
      `/v1/sandboxes/${sessionId}/files/ls`,
      { method: "POST", json: { path: "crowded" } },
    );
    expect(listed.status).toBe(200);
    expect(listed.body.entries).toHaveLength(20_000);
    expect(listed.body.entries[0]?.path).toBe("/workspace/crowded/1");
  });

  it("answers a component over 255 bytes with 422 validation_error on all six operations", async () => {
    for (const path of [
      "a".repeat(256),
      `/workspace/${"b".repeat(300)}/c.txt`,
      `/tmp/${"é".repeat(128)}`, // 128 characters, 256 bytes of UTF-8
    ]) {
      for (const [suffix, json] of fileOperations(path)) {
        const response = await client.sendJson<ErrorBody>(`/v1/sandboxes/${sessionId}/${suffix}`, {
          method: "POST",
          json,
        });
        expect([suffix, path.length, response.status, errorCode(response.body)]).toEqual([
          suffix,
          path.length,
          422,
          "validation_error",
        ]);
        expect(response.body.error.retryable).toBe(false);
        // As every 422 reads (CONTRACT §5): the detail names the path and says what is wrong.
        expect(response.body.error).toMatchObject({
          message: "Invalid request",
          details: [{ type: "value_error", loc: ["body", "path"], msg: expect.any(String) }],
        });
      }
    }
    // 255 bytes is a name the kernel takes: written and read back.
    const longest = `${"é".repeat(127)}x`;
    const written = await client.sendJson(`/v1/sandboxes/${sessionId}/files`, {
      method: "POST",
      json: { path: longest, content: "fits" },
    });
    expect(written.status).toBe(200);
    const read = await client.sendJson<{ content: string }>(`/v1/sandboxes/${sessionId}/files/view`, {
      method: "POST",
      json: { path: longest },
    });
    expect([read.status, read.body.content]).toEqual([200, "fits"]);
  });
});
