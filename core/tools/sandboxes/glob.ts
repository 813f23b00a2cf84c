import { z } from "zod";
import { accountPatternWork } from "../../ports/pattern-work.ts";
import { globFiles } from "../../sandboxes/files/file-operations.ts";
import { inWalkTurn } from "../../sandboxes/files/walk-turns.ts";
import { defineTool, requireAccount } from "../../tool.ts";
import { fileEntry, filesRoute, pathField, withFiles } from "./files.ts";
import { sessionIdParameter } from "./sessions.ts";

export const glob = defineTool({
  name: "glob",
  group: "files",
  title: "Find files by pattern",
  description: "Find files by glob pattern below a directory: paths, sizes and modified_at.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    pattern: z.string().min(1).max(1000).describe("e.g. **/*.ts"),
    path: pathField.default("/").describe('"/" means /workspace'),
  }),
  output: z.object({ matches: z.array(fileEntry) }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: filesRoute("/glob"),
  mcp: {},
  uses: ["patternWork", "plugins", "sandboxRuntime", "storage"],
  handler: (context, input) =>
    withFiles(
      context,
      input.session_id,
      "file glob",
      (files) => {
        const accountId = requireAccount(context);
        return inWalkTurn(accountId, () =>
          globFiles(files, input, accountPatternWork(context.platform.patternWork, accountId)),
        );
      },
      { path: input.path, operation: "glob" },
    ),
});
