/**
 * A path id that cannot name anything (too long, a NUL byte) is the same 404 as an unknown id,
 * never a 422 or a database error; on both databases (PostgreSQL refuses NUL in text).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAccountWithKey,
  createTestPlatform,
  storageTargets,
  type TestPlatform,
} from "../support/platforms.ts";

describe.each(storageTargets)("implausible path ids on %s", (target) => {
  let test: TestPlatform;
  let account: Awaited<ReturnType<typeof createAccountWithKey>>;
  beforeAll(async () => {
    test = await createTestPlatform(target);
    account = await createAccountWithKey(test);
  });
  afterAll(() => test.close());

  const ids = ["x".repeat(65), "abc%00def", "%00"];
  const routes = (id: string): Array<[string, string, "key" | "token", string]> => [
    ["GET", `/v1/memory/${id}`, "key", "memory_not_found"],
    ["GET", `/v1/memory/${id}/relations`, "key", "memory_not_found"],
    ["DELETE", `/v1/memory/${id}`, "key", "memory_not_found"],
    ["DELETE", `/v1/secrets/${id}`, "key", "not_found"],
    ["DELETE", `/v1/api-keys/${id}`, "token", "not_found"],
  ];

  for (const id of ids) {
    it(`answers 404 for ${id.length > 20 ? `${id.length} characters` : id}`, async () => {
      for (const [method, path, kind, code] of routes(id)) {
        const response = await test.request(path, {
          method,
          credential: kind === "key" ? account.key : account.token,
        });
        expect(response.status, `${method} ${path}`).toBe(404);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
      }
    });
  }

  it("refuses a whitespace-only ingest with 422 and writes nothing", async () => {
    const response = await test.request("/v1/memory/ingest", {
      method: "POST",
      credential: account.key,
      json: { content: "  \n\t  " },
    });
    expect(response.status).toBe(422);
    expect(await (await test.request("/v1/memory", { credential: account.key })).json()).toEqual([]);
  });
});

describe.each(storageTargets)("NUL characters on %s", (target) => {
  let test: TestPlatform;
  let key: string;
  beforeAll(async () => {
    test = await createTestPlatform(target);
    key = (await createAccountWithKey(test)).key;
  });
  afterAll(() => test.close());

  it("is a 422 for secrets, allowlist rules and exec commands, never a 500", async () => {
    const attempts: Array<[string, string, unknown]> = [
      ["POST", "/v1/secrets", { name: "a\u0000b", value: "v", allowed_hosts: ["93.184.215.14"] }],
      ["POST", "/v1/secrets", { name: "ok", value: "v\u0000", allowed_hosts: ["93.184.215.14"] }],
      [
        "PUT",
        "/v1/account/allowed-commands",
        { rules: [{ command: "ls", args_allow: ["a\u0000"], args_deny: [] }] },
      ],
    ];
    for (const [method, path, json] of attempts) {
      const response = await test.request(path, { method, credential: key, json });
      expect(response.status, `${method} ${path}`).toBe(422);
    }
    expect(await (await test.request("/v1/secrets", { credential: key })).json()).toEqual([]);
  });
});
