import { z } from "zod";
import { createFile, maxContentCharacters } from "../../sandboxes/files/file-operations.ts";
import { defineTool } from "../../tool.ts";
import { descriptionField, filesRoute, pathField, withFiles } from "./files.ts";
import { sessionIdParameter } from "./sessions.ts";

export const fileCreate = defineTool({
  name: "file_create",
  group: "files",
  title: "Create a file",
  description:
    "Create or overwrite a text file in a sandbox; parent directories are created. Relative paths resolve under /workspace. For small edits to an existing file use str_replace.",
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    path: pathField.describe("File path; relative paths resolve under /workspace"),
    content: z.string().max(maxContentCharacters).describe("The whole file content"),
    description: descriptionField,
  }),
  output: z.object({ path: z.string(), size: z.number().int(), created: z.boolean() }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: filesRoute(""),
  // The tool takes the arguments docs/mcp.md lists; the other fields are REST-only.
  mcp: { omit: ["description"] },
  handler: (context, input) =>
    withFiles(context, input.session_id, "file create", (files) => createFile(files, input), {
      path: input.path,
      operation: "create",
    }),
});
