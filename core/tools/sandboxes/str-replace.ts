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
    "Edit a file in a sandbox by replacing old_str with new_str. old_str must occur exactly once (include surrounding lines to make it unique) unless replace_all is true.",
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    path: pathField.describe("File path; relative paths resolve under /workspace"),
    old_str: z
      .string()
      .min(1)
      .max(maxContentCharacters)
      .describe("Exact text to replace, whitespace included"),
    new_str: z.string().max(maxContentCharacters).describe("Replacement text; empty deletes old_str"),
    replace_all: z.boolean().default(false).describe("Replace every occurrence, not exactly one"),
    description: descriptionField,
  }),
  output: z.object({ path: z.string(), replaced: z.number().int(), occurrences: z.number().int() }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: filesRoute("/str-replace"),
  // The tool takes the arguments docs/mcp.md lists; the other fields are REST-only.
  mcp: { omit: ["description"] },
  handler: (context, input) =>
    withFiles(context, input.session_id, "file edit", (files) => strReplace(files, input), {
      path: input.path,
      operation: "edit",
    }),
});
