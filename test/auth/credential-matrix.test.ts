/**
 * Every route × every kind of credential gives the documented status and code
 * (docs/api.md#authentication, #auth, #api-keys, #account-and-usage), on SQLite and on PostgreSQL.
 */
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenAudience, tokenIssuer } from "../../core/index.ts";
import { type HttpOperation, httpOperations } from "../../transports/rest/operation-routes.ts";
import {
  createAccountWithKey,
  createTestPlatform,
  storageTargets,
  type TestPlatform,
} from "../support/platforms.ts";

const secret = new TextEncoder().encode("test-secret-test-secret-test-secret-0123456789");

type Credential =
  | "none"
  | "malformed header"
  | "bad-checksum key"
  | "revoked key"
  | "expired JWT"
  | "valid JWT"
  | "valid key"
  | "another account's key";

const credentials: Credential[] = [
  "none",
  "malformed header",
  "bad-checksum key",
  "revoked key",
  "expired JWT",
  "valid JWT",
  "valid key",
  "another account's key",
];

type Expected = [number, string | null];

// Valid bodies for the per-session routes, so an unknown session id (404) is what they meet.
const sessionBodies: Record<string, unknown> = {
  exec: { command: "true" },
  http_request: { url: "https://example.com/" },
  file_create: { path: "a.txt", content: "x" },
  view: { path: "a.txt" },
  str_replace: { path: "a.txt", old_str: "x", new_str: "y" },
  ls: {},
  glob: { pattern: "*" },
  grep: { pattern: "x" },
  lsp_start: { language: "typescript" },
  lsp_open: { path: "a.ts", content: "x" },
  lsp_completion: { path: "a.ts", line: 0, character: 0 },
  lsp_stop: {},
  process_start: { command: "true" },
  revoke_preview: { token_id: "preview-token" },
};

function expected(auth: string, credential: Credential, successStatus: number): Expected {
  if (auth === "none") return [successStatus, null];
  if (credential === "none" || credential === "malformed header") return [401, "missing_credentials"];
  const isKey = ["bad-checksum key", "revoked key", "valid key", "another account's key"].includes(
    credential,
  );
  if (auth === "dashboard") {
    if (isKey) return [401, "wrong_credential_type"];
    return credential === "expired JWT" ? [401, "invalid_token"] : [successStatus, null];
  }
  if (!isKey) return [401, "wrong_credential_type"];
  if (credential === "bad-checksum key" || credential === "revoked key") return [401, "invalid_api_key"];
  return [successStatus, null];
}

describe.each(storageTargets)("credential matrix on %s", (target) => {
  let test: TestPlatform;
  let owner: Awaited<ReturnType<typeof createAccountWithKey>>;
  let other: Awaited<ReturnType<typeof createAccountWithKey>>;
  let revokedKey: string;
  let expiredToken: string;

  beforeAll(async () => {
    test = await createTestPlatform(target, { environment: { SVC_AUTH_RATE_LIMIT_PER_MINUTE: "1000" } });
    owner = await createAccountWithKey(test);
    other = await createAccountWithKey(test);
    const extra = await test.request("/v1/api-keys", {
      method: "POST",
      json: { name: "to revoke" },
      credential: owner.token,
    });
    const revoked = (await extra.json()) as { id: string; key: string };
    revokedKey = revoked.key;
    const deleted = await test.request(`/v1/api-keys/${revoked.id}`, {
      method: "DELETE",
      credential: owner.token,
    });
    expect(deleted.status).toBe(204);
    const past = Math.floor(Date.now() / 1000) - 3600;
    expiredToken = await new SignJWT({ email: owner.email, typ: "dashboard" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(owner.accountId)
      .setIssuer(tokenIssuer)
      .setAudience(tokenAudience)
      .setIssuedAt(past - 1800)
      .setExpirationTime(past)
      .sign(secret);
  });
  afterAll(() => test.close());

  function header(credential: Credential): string | undefined {
    const badChecksum = `${owner.key.slice(0, -1)}${owner.key.endsWith("0") ? "1" : "0"}`;
    return {
      none: undefined,
      "malformed header": `Token ${owner.key}`,
      "bad-checksum key": `Bearer ${badChecksum}`,
      "revoked key": `Bearer ${revokedKey}`,
      "expired JWT": `Bearer ${expiredToken}`,
      "valid JWT": `Bearer ${owner.token}`,
      "valid key": `Bearer ${owner.key}`,
      "another account's key": `Bearer ${other.key}`,
    }[credential];
  }

  function requestFor(tool: HttpOperation): { path: string; body?: unknown } {
    switch (tool.name) {
      case "signup":
        return {
          path: tool.http.path,
          body: { email: `${crypto.randomUUID()}@example.com`, password: "long enough pass" },
        };
      case "login":
        return { path: tool.http.path, body: { email: owner.email, password: "correct horse battery" } };
      case "create_api_key":
        return { path: tool.http.path, body: { name: "matrix" } };
      case "revoke_api_key":
        return { path: "/v1/api-keys/00000000-0000-4000-8000-000000000000" };
      case "remember":
        return { path: tool.http.path, body: { content: "The matrix test remembers this." } };
      case "ingest_memory":
        return { path: tool.http.path, body: { content: "The matrix test ingests this sentence." } };
      case "import_memories":
        return { path: tool.http.path, body: { memories: [{ content: "The matrix test imports this." }] } };
      case "recall":
        return { path: `${tool.http.path}?q=matrix` };
      case "set_allowed_commands":
        return { path: tool.http.path, body: { rules: ["ls"] } };
      case "create_secret":
        return {
          path: tool.http.path,
          body: { name: `matrix-${crypto.randomUUID()}`, value: "v", allowed_hosts: ["93.184.215.14"] },
        };
      case "create_sandbox_volume":
        return { path: tool.http.path, body: { size_gb: 1 } };
      case "create_mcp_connection":
        return {
          path: tool.http.path,
          body: { label: `matrix-${crypto.randomUUID()}`, catalog_id: "github" },
        };
      case "create_sandbox":
        // Size over the maximum: refused before anything runs, after the credential was accepted.
        return { path: tool.http.path, body: { size: "large" } };
      default:
        return {
          // An id no account has; a number where the path takes one (a preview's port).
          path: tool.http.path
            .replace(":port", "8000")
            .replace(/:[a-z_]+/g, "00000000-0000-4000-8000-000000000000"),
          body: sessionBodies[tool.name],
        };
    }
  }

  for (const tool of httpOperations()) {
    for (const credential of credentials) {
      it(`${tool.http.method} ${tool.http.path} with ${credential}`, async () => {
        const { path, body } = requestFor(tool);
        const authorization = header(credential);
        const response = await test.request(path, {
          method: tool.http.method,
          headers: authorization ? { Authorization: authorization } : {},
          ...(body ? { json: body } : {}),
        });
        // Unknown ids are 404 once authentication passed; that still proves the credential was accepted.
        const unknownId = tool.http.path.includes(":");
        const success = unknownId ? 404 : tool.name === "create_sandbox" ? 429 : tool.http.status;
        const [status, code] = expected(tool.auth, credential, success);
        const text = await response.text();
        expect(response.status, text).toBe(status);
        if (code) expect(JSON.parse(text).error.code).toBe(code);
      });
    }
  }

  it("a key of another account sees its own account, never the owner's", async () => {
    const response = await test.request("/v1/account", { credential: other.key });
    expect(((await response.json()) as { id: string }).id).toBe(other.accountId);
  });

  it("revoking another account's key is 404 and leaves the key working", async () => {
    const response = await test.request(`/v1/api-keys/${owner.keyId}`, {
      method: "DELETE",
      credential: other.token,
    });
    expect(response.status).toBe(404);
    expect((await test.request("/v1/account", { credential: owner.key })).status).toBe(200);
  });

  it("an API key cannot create a key", async () => {
    const response = await test.request("/v1/api-keys", {
      method: "POST",
      json: { name: "x" },
      credential: owner.key,
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("wrong_credential_type");
  });
});
