import { z } from "zod";
import { ServiceError } from "../../errors.ts";
import { defineTool } from "../../tool.ts";
import { tokenResponse, tokenResponseFor } from "./schemas.ts";

// Verified when the email is unknown, so both failures cost the same argon2 work.
let decoyHash: Promise<string> | undefined;

export const login = defineTool({
  name: "login",
  group: "auth",
  title: "Log in",
  description:
    "Exchange email and password for a dashboard session token (a JWT valid for expires_in seconds). Use it to manage API keys; repeated failures are rate limited.",
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  input: z.object({
    email: z.string().trim().toLowerCase().max(320).describe("Account email (case-insensitive)"),
    password: z.string().max(1000).describe("Account password"),
  }),
  output: tokenResponse,
  auth: "none",
  bucket: "login",
  http: { method: "POST", path: "/v1/auth/login", status: 200 },
  uses: ["dashboardTokens", "loginGuard", "passwords", "storage"],
  async handler(context, input) {
    const { storage, passwords, loginGuard } = context.platform;
    const guardKey = `${input.email}|${context.clientIp}`;
    const blockedSeconds = await loginGuard.blockedFor(guardKey);
    if (blockedSeconds > 0) {
      throw new ServiceError("rate_limited", `Too many failed logins; retry in ${blockedSeconds} s`, {
        details: { bucket: "login", limit: 10, retry_after_seconds: blockedSeconds },
        // X-RateLimit-* as on every 429 (docs/rate-limits.md): the ten failures, none left.
        rateLimit: { limit: 10, remaining: 0, retryAfterSeconds: blockedSeconds },
      });
    }
    const account = await storage.accounts.findByEmail(input.email);
    decoyHash ??= passwords.hash("decoy password for unknown emails");
    const valid = await passwords.verify(account?.passwordHash ?? (await decoyHash), input.password);
    if (!account || !valid) {
      await loginGuard.recordFailure(guardKey);
      throw new ServiceError("invalid_credentials", "Invalid email or password");
    }
    await loginGuard.reset(guardKey);
    return tokenResponseFor(context, account);
  },
});
