/**
 * Secrets over REST (docs/api.md#secrets) on both databases: write-only values, the error codes
 * and limits, encryption at rest (the raw rows and database files never hold the value), no
 * value in any log line, and none inside a sandbox the secret is granted to.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import {
  createCapturingLogger,
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  type SandboxClient,
} from "./sandbox-client.ts";

interface SecretOut {
  id: string;
  name: string;
  allowed_hosts: string[];
  created_at: string;
  last_used_at: string | null;
}

// Built at run time so this file's text is not where a search finds it.
const value = `sv-${crypto.randomUUID()}-${"q".repeat(3)}`;

/** The database's own bytes: every SQLite file in the data dir, or every PostgreSQL secrets row. */
async function rawStorage(test: TestPlatform): Promise<string> {
  if (test.databaseUrl === undefined) {
    const names = (await readdir(test.dataDir)).filter((name) => name.startsWith("cairn.db"));
    expect(names).toContain("cairn.db");
    const files = await Promise.all(names.map((name) => readFile(join(test.dataDir, name))));
    return files.map((file) => file.toString("latin1")).join("\n");
  }
  const client = new pg.Client({ connectionString: test.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query("select to_jsonb(secrets)::text as row from secrets");
    return rows.map((row) => row.row as string).join("\n");
  } finally {
    await client.end();
  }
}

describe.each(storageTargets)("secrets on %s", (target) => {
  const logs = createCapturingLogger();
  let test: TestPlatform;
  let client: SandboxClient;
  const create = (json: Record<string, unknown>, as = client) =>
    as.sendJson<SecretOut>("/v1/secrets", { method: "POST", json });

  beforeAll(async () => {
    test = await createSandboxPlatform(target, {
      logger: logs.logger,
      environment: { SVC_MAX_SECRETS_PER_ACCOUNT: "3", SVC_SECRETS_KEY: "k".repeat(40) },
    });
    client = await createSandboxClient(test);
  });
  afterAll(() => test.close());

  it("creates a secret without ever returning its value", async () => {
    const created = await create({ name: "api-token", value, allowed_hosts: ["API.Example.com"] });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: "api-token",
      allowed_hosts: ["api.example.com"],
      created_at: expect.any(String),
      last_used_at: null,
    });
    expect(JSON.stringify(created.body)).not.toContain(value);
    const listed = await client.sendJson<SecretOut[]>("/v1/secrets");
    expect(listed.body).toEqual([created.body]);
    expect(JSON.stringify(listed.body)).not.toContain(value);
    const stranger = await createSandboxClient(test);
    expect((await stranger.sendJson("/v1/secrets")).body).toEqual([]);
  });

  it("refuses a taken name, bad hosts and more than the limit", async () => {
    const taken = await create({ name: "api-token", value: "other", allowed_hosts: ["example.org"] });
    expect([taken.status, errorCode(taken.body)]).toEqual([409, "secret_name_taken"]);
    for (const host of ["", " ", "https://api.example.com", "api.example.com/path", "*.example.com", "a b"]) {
      const refused = await create({ name: "bad-host", value: "x", allowed_hosts: ["ok.example.com", host] });
      expect([host, refused.status, errorCode(refused.body)]).toEqual([host, 422, "invalid_allowed_host"]);
    }
    for (const host of ["127.0.0.1", "localhost", "169.254.169.254", "10.1.2.3", "192.168.0.1", "[::1]"]) {
      const refused = await create({ name: "unsafe", value: "x", allowed_hosts: [host] });
      expect([host, refused.status, errorCode(refused.body)]).toEqual([host, 422, "unsafe_allowed_host"]);
    }
    const empty = await create({ name: "no-hosts", value: "x", allowed_hosts: [] });
    expect([empty.status, errorCode(empty.body)]).toEqual([422, "validation_error"]);
    const noValue = await create({ name: "no-value", value: "", allowed_hosts: ["example.org"] });
    expect([noValue.status, errorCode(noValue.body)]).toEqual([422, "validation_error"]);

    expect((await create({ name: "second", value: "v2", allowed_hosts: ["example.org"] })).status).toBe(201);
    expect((await create({ name: "third", value: "v3", allowed_hosts: ["example.org"] })).status).toBe(201);
    const fourth = await create({ name: "fourth", value: "v4", allowed_hosts: ["example.org"] });
    expect(fourth.status).toBe(429);
    expect(fourth.body).toMatchObject({
      error: { code: "secret_limit_reached", retryable: false, details: { limit: 3 } },
    });
    expect(
      (await client.sendJson<SecretOut[]>("/v1/secrets")).body.map((secret) => secret.name).sort(),
    ).toEqual(["api-token", "second", "third"]);
  });

  it("deletes only the account's own secrets", async () => {
    const third = (await client.sendJson<SecretOut[]>("/v1/secrets")).body.find(
      (secret) => secret.name === "third",
    )!;
    const stranger = await createSandboxClient(test);
    expect((await stranger.send(`/v1/secrets/${third.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await client.send(`/v1/secrets/${third.id}`, { method: "DELETE" })).status).toBe(204);
    const again = await client.sendJson(`/v1/secrets/${third.id}`, { method: "DELETE" });
    expect([again.status, errorCode(again.body)]).toEqual([404, "not_found"]);
    // The slot is free again.
    expect((await create({ name: "third", value: "v3", allowed_hosts: ["example.org"] })).status).toBe(201);
  });

  it("gives the last slot to one of two racing creates; names are unique per account only", async () => {
    const racer = await createSandboxClient(test);
    for (const name of ["one", "api-token"]) {
      expect((await create({ name, value: "v", allowed_hosts: ["example.org"] }, racer)).status).toBe(201);
    }
    const [left, right] = await Promise.all(
      ["left", "right"].map((name) => create({ name, value: "v", allowed_hosts: ["example.org"] }, racer)),
    );
    expect([left.status, right.status].sort()).toEqual([201, 429]);
    expect((await racer.sendJson<SecretOut[]>("/v1/secrets")).body).toHaveLength(3);
  });

  it("never echoes a submitted value in a refusal", async () => {
    const marker = `echo-${crypto.randomUUID()}`;
    const refusals = [
      { name: "too-long", value: marker.repeat(65_536 / marker.length + 1), allowed_hosts: ["example.org"] },
      { name: "bad-host", value: marker, allowed_hosts: ["https://example.org"] },
      { name: "api-token", value: marker, allowed_hosts: ["example.org"] },
      { name: "", value: marker, allowed_hosts: ["example.org"] },
    ];
    for (const json of refusals) {
      const response = await client.send("/v1/secrets", { method: "POST", json });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(await response.text()).not.toContain(marker);
    }
    expect(logs.text()).not.toContain(marker);
  });

  it("stores the value encrypted", async () => {
    const raw = await rawStorage(test);
    // The rows are there (the scan would see the value), but only as ciphertext.
    expect(raw).toContain("api-token");
    expect(raw).not.toContain(value);
    const [stored] = await test.platform.storage.secrets.findByNames(client.accountId, ["api-token"]);
    expect(stored.encryptedValue).toMatch(/^v1\.[\w-]+\.[\w-]+$/);
    expect(stored.encryptedValue).not.toContain(value);
  });

  it("refuses unknown or foreign secret_names on create, creating nothing", async () => {
    const stranger = await createSandboxClient(test);
    for (const names of [["missing"], ["api-token"]]) {
      const refused = await stranger.create({ secret_names: names });
      expect([refused.status, errorCode(refused.body)]).toEqual([404, "secret_not_found"]);
    }
    const mixed = await client.create({ secret_names: ["api-token", "missing"] });
    expect([mixed.status, errorCode(mixed.body)]).toEqual([404, "secret_not_found"]);
    expect((await client.list()).body).toEqual([]);
    expect((await stranger.usage()).body.total_sandboxes_created).toBe(0);
  });

  it("never places the value in a sandbox it is granted to", async () => {
    const session = await client.createActive({ secret_names: ["api-token"] });
    // The shell assembles the value, so no file or argument holds it before the search.
    const assemble = `v='${value.slice(0, 10)}'; v="$v"'${value.slice(10)}'`;
    const search =
      `env | grep -cF -- "$v"; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -cF -- "$v"; ` +
      // /proc is searched above (walking it whole takes minutes); /usr is the host's read-only system.
      `grep -rlsF -D skip --exclude-dir=proc --exclude-dir=usr -- "$v" / ; true`;
    const result = await client.exec(session.id, `${assemble}; ${search}`, 60);
    expect(result.body).toMatchObject({ stdout: "0\n0\n", timed_out: false });
    // The same search does find the value once it is in the sandbox, so it can fail.
    const control = await client.exec(session.id, `${assemble}; echo "$v" > /tmp/control; ${search}`, 60);
    expect(control.body.stdout).toBe("0\n0\n/tmp/control\n");
    expect((await client.destroy(session.id)).status).toBe(204);
  });

  it("never logs the value", () => {
    expect(logs.count()).toBeGreaterThan(0);
    expect(logs.text()).toContain("secret created");
    expect(logs.text()).not.toContain(value);
  });
});
