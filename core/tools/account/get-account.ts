import { z } from "zod";
import { ServiceError } from "../../errors.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { accountOut, toAccountOut } from "../auth/schemas.ts";

export const getAccount = defineTool({
  name: "get_account",
  group: "account",
  title: "Get the account",
  description: "Who am I: the account (id, email, created_at) behind the API key.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({}),
  output: accountOut,
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/account", status: 200 },
  uses: ["storage"],
  async handler(context) {
    const account = await context.platform.storage.accounts.findById(requireAccount(context));
    if (!account) throw new ServiceError("invalid_api_key", "Invalid or revoked API key");
    return toAccountOut(account);
  },
});
