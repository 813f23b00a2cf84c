import { z } from "zod";
import { accountPatternWork } from "../../ports/pattern-work.ts";
import { grepFiles } from "../../sandboxes/files/file-operations.ts";
import { inWalkTurn } from "../../sandboxes/files/walk-turns.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { filesRoute, pathField, withFiles } from "./files.ts";
import { sessionIdParameter } from "./sessions.ts";

export const grep = defineTool({
  name: "grep",
  group: "files",
  title: "Search file contents",
  description:
    "Search file contents by regex: matching lines with path and line number. An invalid regex or a timeout comes back in error.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    pattern: z.string().min(1).max(1000).describe("RE2 syntax (no lookaround or backreferences)"),
    path: pathField.default("/").describe('"/" means /workspace'),
    glob: z.string().max(1000).nullable().optional().describe("Only files matching it, e.g. *.py"),
    max_matches: z.number().int().min(1).max(5000).default(500).describe("Most lines to return"),
  }),
  output: z.object({
    matches: z.array(z.object({ path: z.string(), line: z.number().int(), text: z.string() })),
    error: z.string().nullable(),
    truncated: z.boolean(),
  }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: filesRoute("/grep"),
  // An invalid pattern or a spent budget is a 200 with `error` on REST (CONTRACT §2.7), a failed call to a model.
  mcp: { failure: (output) => (output as { error: string | null }).error },
  uses: ["patternWork", "plugins", "sandboxRuntime", "storage"],
  handler: (context, input) =>
    withFiles(
      context,
      input.session_id,
      "file grep",
      (files) => {
        const accountId = requireAccount(context);
        // Waiting for the account's turn to walk counts against the search's budget.
        const started = Date.now();
        return inWalkTurn(accountId, () =>
          grepFiles(files, input, {
            run: accountPatternWork(context.platform.patternWork, accountId),
            started,
          }),
        );
      },
      { path: input.path, operation: "grep" },
    ),
});
