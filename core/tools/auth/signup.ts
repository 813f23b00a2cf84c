import { z } from "zod";
import { defineTool } from "../../tool.ts";
import { email, tokenResponse, tokenResponseFor } from "./schemas.ts";

export const signup = defineTool({
  name: "signup",
  group: "auth",
  title: "Sign up",
  description: "Create an account and return a dashboard session token.",
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  input: z.object({ email, password: z.string().min(8).max(200) }),
  output: tokenResponse,
  auth: "none",
  bucket: "signup",
  http: { method: "POST", path: "/v1/auth/signup", status: 201 },
  async handler(context, input) {
    const { storage, passwords } = context.platform;
    const passwordHash = await passwords.hash(input.password);
    const account = await storage.accounts.create({ email: input.email, passwordHash, now: context.now });
    context.logger.info({ accountId: account.id }, "account created");
    return tokenResponseFor(context, account);
  },
});
