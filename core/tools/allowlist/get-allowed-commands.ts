import { z } from "zod";
import { defineTool, requireAccount } from "../../tool.ts";
import { type rule, rulesOut } from "./schemas.ts";

export const getAllowedCommands = defineTool({
  name: "get_allowed_commands",
  group: "allowlist",
  title: "Get the command allowlist",
  description:
    "The account's exec command allowlist; an empty list means exec runs any command. Change it with set_allowed_commands or clear_allowed_commands.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({}),
  output: rulesOut,
  auth: "api_key",
  bucket: null,
  http: { method: "GET", path: "/v1/account/allowed-commands", status: 200 },
  uses: ["storage"],
  async handler(context) {
    return {
      rules: (await context.platform.storage.allowlists.get(requireAccount(context))) as z.input<
        typeof rule
      >[],
    };
  },
});
