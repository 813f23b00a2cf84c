/**
 * The raw API key appears only in the create response: not in listings, not in any log line,
 * not in the database (SQLite file and WAL; PostgreSQL rows). Passwords and tokens never reach
 * the logs either.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { Writable } from "node:stream";
import pg from "pg";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Logger } from "../../core/index.ts";
import { createTestPlatform, storageTargets, type TestPlatform } from "../support/platforms.ts";

describe.each(storageTargets)("credential secrecy on %s", (target) => {
  const lines: string[] = [];
  let test: TestPlatform;
  const password = "pa55word-canary-7f3a";
  let rawKey = "";
  let token = "";

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = pino({ level: "trace" }, sink) as unknown as Logger;
    test = await createTestPlatform(target, { logger });
    const email = `${crypto.randomUUID()}@example.com`;
    const signup = await test.request("/v1/auth/signup", { method: "POST", json: { email, password } });
    token = ((await signup.json()) as { access_token: string }).access_token;
    await test.request("/v1/auth/login", { method: "POST", json: { email, password } });
    await test.request("/v1/auth/login", { method: "POST", json: { email, password: `${password}-wrong` } });
    const created = await test.request("/v1/api-keys", {
      method: "POST",
      json: { name: "secret" },
      credential: token,
    });
    rawKey = ((await created.json()) as { key: string }).key;
    await test.request("/v1/account", { credential: rawKey });
    await test.request(`/v1/account?leak=${rawKey}`, { credential: rawKey });
  });
  afterAll(() => test.close());

  it("shows the key once and never in listings", async () => {
    expect(rawKey).toMatch(/^cairn_[0-9A-Za-z]{38}$/);
    const listing = await (await test.request("/v1/api-keys", { credential: token })).text();
    expect(listing).not.toContain(rawKey);
    expect(listing).toContain(rawKey.slice(0, 14)); // the display prefix only
    expect(listing).not.toContain(rawKey.slice(14));
  });

  it("keeps keys, tokens and passwords out of the logs", () => {
    const log = lines.join("");
    expect(lines.length).toBeGreaterThan(5);
    expect(log).not.toContain(rawKey);
    expect(log).not.toContain(rawKey.slice(6));
    expect(log).not.toContain(token);
    expect(log).not.toContain(password);
  });

  it("stores only the digest", async () => {
    await test.platform.close().catch(() => {});
    const needle = rawKey.slice(6);
    if (target === "sqlite") {
      const files = await readdir(test.dataDir);
      const databaseFiles = files.filter((name) => name.startsWith("cairn.db"));
      expect(databaseFiles).toContain("cairn.db");
      for (const name of databaseFiles) {
        const bytes = await readFile(join(test.dataDir, name));
        expect(bytes.includes(Buffer.from(needle)), name).toBe(false);
        expect(bytes.includes(Buffer.from(password)), name).toBe(false);
      }
    } else {
      const client = new pg.Client({ connectionString: test.databaseUrl });
      await client.connect();
      const { rows } = await client.query(
        "select row_to_json(k)::text as row from api_keys k union all select row_to_json(a)::text from accounts a",
      );
      await client.end();
      expect(rows.length).toBeGreaterThan(1);
      for (const { row } of rows) {
        expect(row).not.toContain(needle);
        expect(row).not.toContain(password);
      }
    }
  });
});
