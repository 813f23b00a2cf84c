import { z } from "zod";
import { defineTool, requireAccount } from "../../tool.ts";

export const clearAllowedCommands = defineTool({
  name: "clear_allowed_commands",
  group: "allowlist",
  title: "Clear the command allowlist",
  description: "Remove the exec command allowlist, so exec runs any command again.",
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  input: z.object({}),
  output: z.null(),
  auth: "api_key",
  bucket: null,
  http: { method: "DELETE", path: "/v1/account/allowed-commands", status: 204 },
  uses: ["storage"],
  async handler(context) {
    await context.platform.storage.allowlists.clear(requireAccount(context));
    return null;
  },
});
