/**
 * Helpers for the sandbox suites: platforms on a real database with a real bubblewrap runtime, and
 * a small client over the REST routes of docs/api.md (allowlist, sandboxes, exec, broker, files,
 * secrets) bound to one API key.
 */
import { inspect } from "node:util";
import { expect } from "vitest";
import type { Clock, Logger } from "../../core/index.ts";
import {
  createAccountWithKey,
  createTestPlatform,
  type StorageTarget,
  type TestPlatform,
  type TestPlatformOptions,
} from "../support/platforms.ts";

export interface SessionOut {
  id: string;
  status: "active" | "destroyed";
  label: string | null;
  created_at: string;
  destroyed_at: string | null;
  expires_at: string;
  ended_reason: "destroyed" | "expired" | null;
  runtime: string;
  connect: { pod_name: string | null; note: string } | null;
}

export interface UsageOut {
  monthly_sandbox_hours_used: number;
  monthly_sandbox_hours_limit: number;
  concurrent_sandboxes: number;
  concurrent_sandboxes_limit: number;
  total_sandboxes_created: number;
  sandbox_ops_rate_limit_remaining?: number;
  sandbox_ops_rate_limit?: number;
}

export interface BrokerOut {
  status_code: number;
  headers: Record<string, string>;
  body: string;
  truncated: boolean;
}

export interface ExecOut {
  exit_code: number;
  stdout: string;
  stderr: string;
  timed_out: boolean;
  truncated: boolean;
  duration_ms: number;
}

/** A snapshot as REST answers it (the fields the suites read). */
export interface SnapshotOut {
  id: string;
  session_id: string;
  label: string | null;
  status: string;
  size_bytes: number;
}

export interface ErrorBody {
  error: { code: string; message: string; retryable: boolean; details?: unknown };
}

/** A platform whose signup and lifecycle buckets never get in the way (suites set their own). */
export function createSandboxPlatform(
  target: StorageTarget,
  options: { clock?: Clock; environment?: Record<string, string> } & TestPlatformOptions = {},
) {
  return createTestPlatform(target, {
    ...options,
    environment: {
      SVC_AUTH_RATE_LIMIT_PER_MINUTE: "100000",
      SVC_SANDBOX_LIFECYCLE_RATE_LIMIT_PER_MINUTE: "100000",
      SVC_SECRET_RATE_LIMIT_PER_MINUTE: "100000",
      SVC_SANDBOX_RATE_LIMIT_PER_MINUTE: "100000",
      ...options.environment,
    },
  });
}

export type SandboxClient = Awaited<ReturnType<typeof createSandboxClient>>;

/**
 * Signs up a fresh account and returns a client bound to its API key; given an account, a client
 * of that one (the same account on another replica).
 */
export async function createSandboxClient(
  test: TestPlatform,
  existing?: Awaited<ReturnType<typeof createAccountWithKey>>,
) {
  const account = existing ?? (await createAccountWithKey(test));
  const send = (path: string, init: { method?: string; json?: unknown } = {}) =>
    test.request(path, { method: init.method ?? "GET", json: init.json, credential: account.key });
  const sendJson = async <T>(path: string, init: { method?: string; json?: unknown } = {}) => {
    const response = await send(path, init);
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: (text ? JSON.parse(text) : null) as T,
    };
  };
  return {
    ...account,
    send,
    sendJson,
    create: (json: Record<string, unknown> = {}) =>
      sendJson<SessionOut & { usage: UsageOut }>("/v1/sandboxes", { method: "POST", json }),
    /** Creates one sandbox and fails loudly when that is refused. */
    async createActive(json: Record<string, unknown> = {}): Promise<SessionOut & { usage: UsageOut }> {
      const created = await sendJson<SessionOut & { usage: UsageOut }>("/v1/sandboxes", {
        method: "POST",
        json,
      });
      if (created.status !== 201)
        throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
      return created.body;
    },
    get: (id: string) => sendJson<SessionOut>(`/v1/sandboxes/${id}`),
    list: (activeOnly = false) => sendJson<SessionOut[]>(`/v1/sandboxes?active_only=${activeOnly}`),
    destroy: (id: string) => send(`/v1/sandboxes/${id}`, { method: "DELETE" }),
    exec: (id: string, command: string, timeout?: number) =>
      sendJson<ExecOut>(`/v1/sandboxes/${id}/exec`, { method: "POST", json: { command, timeout } }),
    usage: () => sendJson<UsageOut>("/v1/usage"),
    httpRequest: (id: string, json: Record<string, unknown>) =>
      sendJson<BrokerOut>(`/v1/sandboxes/${id}/http-request`, { method: "POST", json }),
  };
}

export const errorCode = (body: unknown) => (body as ErrorBody).error?.code;
export const errorDetails = (body: unknown) => (body as ErrorBody).error?.details;

/** Every operational per-session route (docs/api.md#exec, #http-broker, #files) with a valid body. */
export const sessionOperations: Array<[suffix: string, json: Record<string, unknown>]> = [
  ["exec", { command: "true" }],
  ["http-request", { url: "https://example.com/" }],
  ["files", { path: "a.txt", content: "x" }],
  ["files/view", { path: "a.txt" }],
  ["files/str-replace", { path: "a.txt", old_str: "x", new_str: "y" }],
  ["files/ls", { path: "/" }],
  ["files/glob", { pattern: "*" }],
  ["files/grep", { pattern: "x" }],
];

/** Asserts that every operational route and DELETE answer 404 not_found for this caller. */
export async function expectNotFoundEverywhere(client: SandboxClient, id: string) {
  for (const [suffix, json] of sessionOperations) {
    const response = await client.sendJson(`/v1/sandboxes/${id}/${suffix}`, { method: "POST", json });
    expect([suffix, response.status, errorCode(response.body)]).toEqual([suffix, 404, "not_found"]);
  }
  const destroyed = await client.sendJson(`/v1/sandboxes/${id}`, { method: "DELETE" });
  expect([destroyed.status, errorCode(destroyed.body)]).toEqual([404, "not_found"]);
}

/** A logger that keeps every entry as text (errors with their messages and causes), for leak checks. */
export function createCapturingLogger() {
  const entries: string[] = [];
  const record = (level: string, bindings: Record<string, unknown>) => (object: object, message?: string) => {
    entries.push(`${level} ${message ?? ""} ${inspect({ ...bindings, ...object }, { depth: 12 })}`);
  };
  const make = (bindings: Record<string, unknown>): Logger => ({
    debug: record("debug", bindings),
    info: record("info", bindings),
    warn: record("warn", bindings),
    error: record("error", bindings),
    child: (more) => make({ ...bindings, ...more }),
  });
  return { logger: make({}), text: () => entries.join("\n"), count: () => entries.length };
}
