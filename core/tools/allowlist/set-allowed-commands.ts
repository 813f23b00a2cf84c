import { z } from "zod";
import { ServiceError } from "../../errors.ts";
import { PatternTimeout } from "../../ports/pattern-work.ts";
import { readAllowlistRules } from "../../sandboxes/allowlist/allowlist.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { rulesOut } from "./schemas.ts";

const compileMs = 10_000;

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
  uses: ["config", "patternWork", "storage"],
  async handler(context, input) {
    const { config, storage } = context.platform;
    const { rules, inputIndexes } = readAllowlistRules(input.rules, config.SVC_MAX_ALLOWLIST_RULES);
    // Compiling is the tenant's CPU (a 200-character pattern can take 100 ms): a pattern task.
    const invalid = await context.platform.patternWork
      .run(requireAccount(context), "invalidAllowlistPattern", { rules, inputIndexes }, compileMs)
      .catch((error: unknown) => {
        if (!(error instanceof PatternTimeout)) throw error;
        return { message: "the patterns took too long to compile", details: {} };
      });
    if (invalid) throw new ServiceError("invalid_pattern", invalid.message, { details: invalid.details });
    await storage.allowlists.set(requireAccount(context), rules, context.now);
    return { rules };
  },
});
