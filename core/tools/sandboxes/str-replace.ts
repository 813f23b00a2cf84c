import { z } from "zod";
import { maxContentCharacters, strReplace } from "../../sandboxes/files/file-operations.ts";
import { defineTool } from "../../tool.ts";
import { descriptionField, filesRoute, pathField, withFiles } from "./files.ts";
import { sessionIdParameter } from "./sessions.ts";

export const strReplaceTool = defineTool({
  name: "str_replace",
  group: "files",
  title: "Replace text in a file",
  description:
    "Replace old_str with new_str in a file; old_str must occur exactly once (include surrounding lines) unless replace_all.",
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    path: pathField.describe("Under /workspace if relative"),
    old_str: z.string().min(1).max(maxContentCharacters).describe("Exact text, whitespace included"),
    new_str: z.string().max(maxContentCharacters).describe("Empty deletes old_str"),
    replace_all: z.boolean().default(false).describe("Every occurrence"),
    description: descriptionField,
  }),
  output: z.object({ path: z.string(), replaced: z.number().int(), occurrences: z.number().int() }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: filesRoute("/str-replace"),
  // The tool takes the arguments docs/mcp.md lists; the other fields are REST-only.
  // `path`: the server's instructions say where relative paths are.
  mcp: { omit: ["description"], saidByTool: ["replace_all", "path"] },
  uses: ["plugins", "sandboxRuntime", "storage"],
  handler: (context, input) =>
    withFiles(context, input.session_id, "file edit", (files) => strReplace(files, input), {
      path: input.path,
      operation: "edit",
    }),
});
