import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { email, tokenResponse, tokenResponseFor } from "./schemas.ts";

export const signup = defineTool({
  name: "signup",
  group: "auth",
  title: "Sign up",
  description:
    "Create an account from an email and password and return a dashboard session token (a JWT). Use the token to create API keys; an email already registered is email_taken.",
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  input: z.object({
    email: email.describe("Account email; stored trimmed and lower-cased"),
    password: z.string().min(8).max(200).describe("Account password; stored only as an argon2id hash"),
  }),
  output: tokenResponse,
  auth: "none",
  bucket: "signup",
  http: { method: "POST", path: "/v1/auth/signup", status: 201 },
  uses: ["dashboardTokens", "passwords", "storage"],
  async handler(context, input) {
    const { storage, passwords } = context.platform;
    const passwordHash = await passwords.hash(input.password);
    const account = await storage.accounts.create({ email: input.email, passwordHash, now: context.now });
    context.logger.info({ accountId: account.id }, "account created");
    return tokenResponseFor(context, account);
  },
});
