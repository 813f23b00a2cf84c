/**
 * Bytes in and out of a sandbox (docs/sandboxes.md#bytes), over HTTP on a live server with real
 * bubblewrap sandboxes: a 50 MiB random file through the raw routes and 5 MiB through base64 on
 * the JSON routes come back byte for byte; a text view of a binary file is refused, never shown
 * with U+FFFD; invalid base64 is 422 on `content`; an upload past 100 MiB is 413 and leaves
 * nothing; the raw routes keep the path rules (403) and tenancy (404) of the other file routes.
 */
import { createHash, randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHttp, type LiveServer, startLiveServer } from "../mcp/mcp-harness.ts";
import { type LiveAccount, signUpWithKey } from "../support/processes.ts";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const mebibyte = 1024 * 1024;

let server: LiveServer;
let owner: LiveAccount;
let stranger: LiveAccount;
let sessionId: string;

function call(account: LiveAccount, path: string, init: RequestInit = {}) {
  return fetch(`${server.baseUrl}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${account.key}`, ...(init.headers as Record<string, string>) },
  });
}

const rawPath = (id: string, path: string) =>
  `/v1/sandboxes/${id}/files/raw?path=${encodeURIComponent(path)}`;

async function postJson(account: LiveAccount, path: string, json: unknown) {
  const response = await call(account, path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(json),
  });
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are read by field.
  return { status: response.status, body: (await response.json()) as any };
}

async function upload(account: LiveAccount, id: string, path: string, body: BodyInit) {
  const response = await call(account, rawPath(id, path), {
    method: "PUT",
    headers: { "content-type": "application/octet-stream" },
    body,
    duplex: "half",
  } as RequestInit);
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are read by field.
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

/** A stream of `total` bytes in 1 MiB chunks, sent chunked (no Content-Length). */
function chunkedBytes(total: number, fill = 7): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      const size = Math.min(mebibyte, total - sent);
      sent += size;
      controller.enqueue(new Uint8Array(size).fill(fill));
    },
  });
}

async function listNames(id: string, path: string): Promise<string[]> {
  const listed = await postJson(owner, `/v1/sandboxes/${id}/files/ls`, { path });
  return (listed.body.entries as Array<{ path: string }>).map((entry) => entry.path);
}

beforeAll(async () => {
  server = await startLiveServer({
    SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000",
    SVC_SANDBOX_RATE_LIMIT_PER_MINUTE: "100000",
  });
  owner = await signUpWithKey(server.baseUrl);
  stranger = await signUpWithKey(server.baseUrl);
  const created = await postJson(owner, "/v1/sandboxes", {});
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  sessionId = created.body.id;
}, 120_000);
afterAll(async () => {
  await server?.close();
});

describe("raw routes", () => {
  it("a 50 MiB random file goes in and comes back byte for byte", async () => {
    const bytes = randomBytes(50 * mebibyte);
    const put = await upload(owner, sessionId, "data/big.bin", bytes);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toEqual({ path: "/workspace/data/big.bin", size: bytes.length, created: true });
    expect(put.headers.get("x-ratelimit-limit")).toBe("100000");
    // Inside the sandbox the file is the same bytes.
    const inside = await postJson(owner, `/v1/sandboxes/${sessionId}/exec`, {
      command: "sha256sum data/big.bin",
    });
    expect(inside.body.stdout.split(" ")[0]).toBe(sha256(bytes));

    const got = await call(owner, rawPath(sessionId, "/workspace/data/big.bin"));
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toBe("application/octet-stream");
    expect(got.headers.get("content-length")).toBe(String(bytes.length));
    expect(got.headers.get("x-ratelimit-remaining")).not.toBeNull();
    expect(sha256(new Uint8Array(await got.arrayBuffer()))).toBe(sha256(bytes));
  }, 120_000);

  it("streams a chunked upload without Content-Length and overwrites in place", async () => {
    const first = await upload(owner, sessionId, "chunked.bin", chunkedBytes(3 * mebibyte + 5, 1));
    expect(first.body).toMatchObject({ size: 3 * mebibyte + 5, created: true });
    const second = await upload(owner, sessionId, "chunked.bin", chunkedBytes(10, 2));
    expect(second.body).toEqual({ path: "/workspace/chunked.bin", size: 10, created: false });
    const got = new Uint8Array(await (await call(owner, rawPath(sessionId, "chunked.bin"))).arrayBuffer());
    expect([...got]).toEqual(new Array(10).fill(2));
    const head = await call(owner, rawPath(sessionId, "chunked.bin"), { method: "HEAD" });
    expect([head.status, head.headers.get("content-length"), (await head.arrayBuffer()).byteLength]).toEqual([
      200,
      "10",
      0,
    ]);
    // An empty body makes an empty file.
    const empty = await upload(owner, sessionId, "empty.bin", new Uint8Array(0));
    expect(empty.body).toMatchObject({ size: 0, created: true });
    const read = await call(owner, rawPath(sessionId, "empty.bin"));
    expect([read.status, read.headers.get("content-length"), (await read.arrayBuffer()).byteLength]).toEqual([
      200,
      "0",
      0,
    ]);
  }, 60_000);

  it("an upload past 100 MiB is 413 and leaves nothing behind, not even a part of it", async () => {
    await upload(owner, sessionId, "keep/old.bin", new Uint8Array([1, 2, 3]));
    // Counted as it streams in (no Content-Length to refuse it by).
    const streamed = await upload(owner, sessionId, "keep/old.bin", chunkedBytes(100 * mebibyte + 1));
    expect([streamed.status, streamed.body.error.code]).toEqual([413, "payload_too_large"]);
    const fresh = await upload(owner, sessionId, "keep/new.bin", chunkedBytes(100 * mebibyte + 1));
    expect(fresh.status).toBe(413);
    expect(await listNames(sessionId, "keep")).toEqual(["/workspace/keep/old.bin"]);
    const old = await call(owner, rawPath(sessionId, "keep/old.bin"));
    expect([...new Uint8Array(await old.arrayBuffer())]).toEqual([1, 2, 3]);

    // A declared length past the limit is refused before a byte is read.
    const declared = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(`${server.baseUrl}${rawPath(sessionId, "keep/declared.bin")}`);
      const request = httpRequest(url, {
        method: "PUT",
        headers: { authorization: `Bearer ${owner.key}`, "content-length": String(200 * mebibyte) },
      });
      request.on("response", (response) => {
        let body = "";
        response.on("data", (chunk) => {
          body += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      });
      request.on("error", reject);
      request.write("x");
    });
    expect([declared.status, JSON.parse(declared.body).error.code]).toEqual([413, "payload_too_large"]);
    expect(await listNames(sessionId, "keep")).toEqual(["/workspace/keep/old.bin"]);
  }, 120_000);

  it("keeps the path rules: escapes are 403, a directory or a missing path is 422, a missing file 404", async () => {
    await postJson(owner, `/v1/sandboxes/${sessionId}/exec`, { command: "ln -sf /etc/passwd escape" });
    for (const path of ["../etc/passwd", "/etc/passwd", "escape"]) {
      const put = await upload(owner, sessionId, path, "x");
      expect([path, put.status, put.body.error.code]).toEqual([path, 403, "path_outside_sandbox"]);
      const got = await call(owner, rawPath(sessionId, path));
      expect([path, got.status, ((await got.json()) as { error: { code: string } }).error.code]).toEqual([
        path,
        403,
        "path_outside_sandbox",
      ]);
    }
    const directory = await call(owner, rawPath(sessionId, "/workspace"));
    expect(directory.status).toBe(422);
    const missing = await call(owner, rawPath(sessionId, "nothing-here.bin"));
    expect([missing.status, ((await missing.json()) as { error: { code: string } }).error.code]).toEqual([
      404,
      "not_found",
    ]);
    const noPath = await call(owner, `/v1/sandboxes/${sessionId}/files/raw`);
    const noPathBody = (await noPath.json()) as {
      error: { code: string; details: Array<{ loc: string[] }> };
    };
    expect([noPath.status, noPathBody.error.details[0].loc]).toEqual([422, ["query", "path"]]);
    const wrongMethod = await call(owner, rawPath(sessionId, "a"), { method: "POST" });
    expect([wrongMethod.status, wrongMethod.headers.get("allow")]).toEqual([405, "GET, PUT"]);
  }, 60_000);

  it("another account's sandbox is 404 on both routes, and a missing key 401", async () => {
    const put = await upload(stranger, sessionId, "theirs.bin", "x");
    expect([put.status, put.body.error.code]).toEqual([404, "not_found"]);
    const got = await call(stranger, rawPath(sessionId, "data/big.bin"));
    expect(got.status).toBe(404);
    const anonymous = await fetch(`${server.baseUrl}${rawPath(sessionId, "data/big.bin")}`);
    expect(anonymous.status).toBe(401);
    expect(await listNames(sessionId, "/workspace")).not.toContain("/workspace/theirs.bin");
  });
});

describe("encoding on file_create and view", () => {
  it("5 MiB of random bytes go in and out as base64 exactly", async () => {
    const bytes = randomBytes(5 * mebibyte);
    const created = await postJson(owner, `/v1/sandboxes/${sessionId}/files`, {
      path: "b64/random.bin",
      content: bytes.toString("base64"),
      encoding: "base64",
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toEqual({ path: "/workspace/b64/random.bin", size: bytes.length, created: true });
    const viewed = await postJson(owner, `/v1/sandboxes/${sessionId}/files/view`, {
      path: "b64/random.bin",
      encoding: "base64",
    });
    expect(viewed.body.encoding).toBe("base64");
    expect(sha256(Buffer.from(viewed.body.content, "base64"))).toBe(sha256(bytes));
    const raw = await call(owner, rawPath(sessionId, "b64/random.bin"));
    expect(sha256(new Uint8Array(await raw.arrayBuffer()))).toBe(sha256(bytes));
  }, 60_000);

  it("a 10 MiB file fits in base64 within the JSON limit; more is 422 on content", async () => {
    const bytes = randomBytes(10 * mebibyte);
    const fits = await postJson(owner, `/v1/sandboxes/${sessionId}/files`, {
      path: "b64/ten.bin",
      content: bytes.toString("base64"),
      encoding: "base64",
    });
    expect([fits.status, fits.body.size]).toEqual([200, bytes.length]);
    const over = await postJson(owner, `/v1/sandboxes/${sessionId}/files`, {
      path: "b64/eleven.bin",
      content: randomBytes(10 * mebibyte + 3).toString("base64"),
      encoding: "base64",
    });
    expect(over.status).toBe(422);
    expect(over.body.error.details[0].loc).toEqual(["body", "content"]);
  }, 60_000);

  it("text stays the default: utf-8 content written and viewed as before, with encoding in the answer", async () => {
    const text = "héllo wörld ✓\nline two\n";
    await postJson(owner, `/v1/sandboxes/${sessionId}/files`, { path: "text.txt", content: text });
    const viewed = await postJson(owner, `/v1/sandboxes/${sessionId}/files/view`, { path: "text.txt" });
    expect(viewed.body).toEqual({
      content: text,
      encoding: "utf-8",
      lines: 2,
      is_directory: false,
      entries: null,
      truncated: false,
      omitted_bytes: 0,
      omitted_lines: null,
    });
    const asBytes = await postJson(owner, `/v1/sandboxes/${sessionId}/files/view`, {
      path: "text.txt",
      encoding: "base64",
    });
    expect(Buffer.from(asBytes.body.content, "base64").toString("utf8")).toBe(text);
    expect(asBytes.body.lines).toBe(2);
  });

  it("invalid base64 is 422 naming content, and writes nothing", async () => {
    for (const content of ["not base64!", "abc=d", "YQ===", "a"]) {
      const response = await postJson(owner, `/v1/sandboxes/${sessionId}/files`, {
        path: "bad.bin",
        content,
        encoding: "base64",
      });
      expect([
        content,
        response.status,
        response.body.error.code,
        response.body.error.details[0].loc,
      ]).toEqual([content, 422, "validation_error", ["body", "content"]]);
    }
    const unknown = await postJson(owner, `/v1/sandboxes/${sessionId}/files`, {
      path: "bad.bin",
      content: "x",
      encoding: "latin-1",
    });
    expect([unknown.status, unknown.body.error.details[0].loc]).toEqual([422, ["body", "encoding"]]);
    expect(await listNames(sessionId, "/workspace")).not.toContain("/workspace/bad.bin");
  });

  it("a text view or edit of a binary file is refused with file_not_utf8, never U+FFFD", async () => {
    // The start of a gzip stream: 0x1f 0x8b is not UTF-8.
    const gzip = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x61, 0x0a]);
    await upload(owner, sessionId, "archive.gz", gzip);
    const viewed = await postJson(owner, `/v1/sandboxes/${sessionId}/files/view`, { path: "archive.gz" });
    expect(viewed.status).toBe(422);
    expect(viewed.body.error.code).toBe("file_not_utf8");
    expect(viewed.body.error.remediation).toContain('encoding "base64"');
    expect(viewed.body.error.remediation).toContain("/files/raw");
    expect(JSON.stringify(viewed.body)).not.toContain("\ufffd");
    const edited = await postJson(owner, `/v1/sandboxes/${sessionId}/files/str-replace`, {
      path: "archive.gz",
      old_str: "a",
      new_str: "b",
    });
    expect([edited.status, edited.body.error.code]).toEqual([422, "file_not_utf8"]);
    const asBytes = await postJson(owner, `/v1/sandboxes/${sessionId}/files/view`, {
      path: "archive.gz",
      encoding: "base64",
    });
    expect(Buffer.from(asBytes.body.content, "base64").equals(gzip)).toBe(true);
    const ranged = await postJson(owner, `/v1/sandboxes/${sessionId}/files/view`, {
      path: "archive.gz",
      encoding: "base64",
      view_range: [1, 2],
    });
    expect([ranged.status, ranged.body.error.details[0].loc]).toEqual([422, ["body", "view_range"]]);
  });
});

describe("over MCP", () => {
  it("file_create and view take and give base64; a text view of bytes is an isError result", async () => {
    const client = await connectHttp(server.baseUrl, owner.key);
    try {
      const bytes = randomBytes(4096);
      const created = await client.callTool({
        name: "file_create",
        arguments: {
          session_id: sessionId,
          path: "mcp.bin",
          content: bytes.toString("base64"),
          encoding: "base64",
        },
      });
      expect(created.structuredContent).toEqual({ path: "/workspace/mcp.bin", size: 4096, created: true });
      const viewed = await client.callTool({
        name: "view",
        arguments: { session_id: sessionId, path: "mcp.bin", encoding: "base64" },
      });
      const content = (viewed.structuredContent as { content: string; encoding: string }).content;
      expect(Buffer.from(content, "base64").equals(bytes)).toBe(true);
      const refused = await client.callTool({
        name: "view",
        arguments: { session_id: sessionId, path: "mcp.bin" },
      });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({ error: { code: "file_not_utf8" } });
      expect(JSON.stringify(refused.content)).toContain("[file_not_utf8] (HTTP 422)");
    } finally {
      await client.close();
    }
  });
});
