/**
 * The account's command allowlist (CONTRACT.md §2.4). REST only: an agent over MCP cannot widen
 * its own allowlist.
 */
import { z } from "zod";
import { parseAllowlistRules } from "../../sandboxes/allowlist.ts";
import { defineTool, requireAccount } from "../../tool.ts";

const rule = z.union([
  z.string(),
  z.object({ command: z.string(), args_allow: z.array(z.string()), args_deny: z.array(z.string()) }),
]);
const rulesOut = z.object({ rules: z.array(rule) });

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
  async handler(context) {
    return {
      rules: (await context.platform.storage.allowlists.get(requireAccount(context))) as z.input<
        typeof rule
      >[],
    };
  },
});

export const setAllowedCommands = defineTool({
  name: "set_allowed_commands",
  group: "allowlist",
  title: "Set the command allowlist",
  description:
    "Replace the exec command allowlist. Each rule is a command name or {command, args_allow, args_deny} whose regexes are matched against the joined arguments. Returns the rules as stored.",
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  input: z.object({
    rules: z
      .array(z.unknown())
      .min(1)
      .refine(
        (rules) => !JSON.stringify(rules).includes("\\u0000"),
        "rules must not contain the NUL character (U+0000)",
      )
      .describe("Each a command name, or {command, args_allow: [regex], args_deny: [regex]}"),
  }),
  output: rulesOut,
  auth: "api_key",
  bucket: null,
  http: { method: "PUT", path: "/v1/account/allowed-commands", status: 200 },
  async handler(context, input) {
    const { config, storage } = context.platform;
    const rules = parseAllowlistRules(input.rules, config.SVC_MAX_ALLOWLIST_RULES);
    await storage.allowlists.set(requireAccount(context), rules, context.now);
    return { rules };
  },
});

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
  async handler(context) {
    await context.platform.storage.allowlists.clear(requireAccount(context));
    return null;
  },
});
