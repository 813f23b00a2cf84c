import { z } from "zod";
import { ServiceError } from "../../errors.ts";
import { PatternTimeout } from "../../ports/pattern-work.ts";
import {
  headerProblems,
  invalidHeaderValues,
  invalidValueMessage,
} from "../../sandboxes/broker/broker-headers.ts";
import { type GrantedSecret, substituteSecrets } from "../../sandboxes/broker/secrets.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { requireActiveSession, runtimeCall, sessionIdParameter } from "./sessions.ts";

// The response body handed back is capped like exec output.
const maxResponseBytes = 1024 * 1024;
// Redacting waits its turn behind the account's other pattern tasks; past this the call fails.
const redactionMs = 10_000;

export const httpRequest = defineTool({
  name: "http_request",
  group: "sandboxes",
  title: "Send an HTTP request from a sandbox",
  description:
    "Send an HTTP request from the server on a sandbox's behalf (sandboxes have no network). {{secret:<name>}} in headers or body becomes a secret granted to the session, only for its allowed hosts; secret values are redacted from the response.",
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  input: z.object({
    session_id: sessionIdParameter,
    method: z
      .string()
      .min(1)
      .max(10)
      .regex(/^[A-Za-z]+$/, "must be an HTTP method name")
      .default("GET")
      .describe("HTTP method, e.g. GET or POST"),
    url: z.string().min(1).max(4096).describe("Absolute http or https URL"),
    headers: z
      .record(z.string().max(256), z.string().max(65_536))
      .superRefine((headers, context) => {
        for (const problem of headerProblems(headers)) {
          context.addIssue({ code: "custom", path: [problem.name], message: problem.message });
        }
      })
      .default({})
      .describe("Request headers by name; values may hold {{secret:<name>}}"),
    body: z
      .string()
      .max(10 * 1024 * 1024)
      .nullable()
      .default(null)
      .describe("Request body text; may hold {{secret:<name>}}"),
    timeout: z.number().int().min(1).max(60).default(15).describe("Seconds to wait for the response"),
  }),
  output: z.object({
    status_code: z.number().int(),
    headers: z.record(z.string(), z.string()),
    body: z.string(),
    truncated: z.boolean(),
  }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: { method: "POST", path: "/v1/sandboxes/:session_id/http-request", status: 200 },
  uses: ["config", "egress", "patternWork", "plugins", "secretCipher", "storage"],
  async handler(context, input) {
    const accountId = requireAccount(context);
    const session = await requireActiveSession(context, input.session_id);
    const { storage, secretCipher, egress, config } = context.platform;
    const granted = new Map<string, GrantedSecret>();
    for (const secret of await storage.secrets.findByNames(accountId, session.grants.secretNames)) {
      granted.set(secret.name, {
        value: await secretCipher.decrypt(secret.encryptedValue, `${accountId}/${secret.id}`),
        allowedHosts: secret.allowedHosts,
      });
    }
    const request = substituteSecrets({ url: input.url, headers: input.headers, body: input.body }, granted);
    // A secret value may hold what a header cannot (a line break, say): refused, never sent.
    const invalid = invalidHeaderValues(request.headers);
    if (invalid.length > 0) {
      throw new ServiceError("validation_error", "Invalid request", {
        details: invalid.map((name) => ({
          type: "value_error",
          loc: ["headers", name],
          msg: `after secret substitution, ${invalidValueMessage}`,
        })),
      });
    }
    const response = await runtimeCall(context, "http request", () =>
      egress.request({
        method: input.method.toUpperCase(),
        url: request.url,
        headers: request.headers,
        body: request.body,
        timeoutSeconds: input.timeout,
        maxResponseBytes,
        allowPrivate: config.SVC_ALLOW_PRIVATE_EGRESS,
        signal: context.signal,
      }),
    );
    await storage.secrets.touch(accountId, request.usedSecretNames, context.now);
    // The URL as the caller wrote it, without its query (where a secret could sit); the secret never.
    const target = URL.canParse(input.url) ? new URL(input.url) : null;
    await context.platform.plugins.recordActivity(session.id, {
      kind: "broker",
      subject: `${input.method.toUpperCase()} ${target ? `${target.origin}${target.pathname}` : "(unparsed URL)"}`,
      operation: "http_request",
      at: context.now,
      keyId: context.credentialId ?? null,
      bytes: new TextEncoder().encode(response.body).length,
      detail: `HTTP ${response.statusCode}`,
    });
    // Searching the response for every form of every granted secret is the tenant's CPU: a task.
    const redacted =
      granted.size === 0
        ? response
        : await context.platform.patternWork
            .run(
              accountId,
              "redactResponse",
              {
                values: [...granted.values()].map((secret) => secret.value),
                headers: response.headers,
                body: response.body,
                truncated: response.truncated,
              },
              redactionMs,
            )
            .catch((error: unknown) => {
              if (!(error instanceof PatternTimeout)) throw error;
              throw new ServiceError(
                "sandbox_operation_failed",
                "The response could not be checked for secrets in time",
              );
            });
    return {
      status_code: response.statusCode,
      headers: redacted.headers,
      body: redacted.body,
      truncated: response.truncated,
    };
  },
});
