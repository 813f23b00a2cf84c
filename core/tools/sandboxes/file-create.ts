import { z } from "zod";
import {
  base64Length,
  createFile,
  fileEncodings,
  maxContentBytes,
} from "../../sandboxes/files/file-operations.ts";
import { defineTool } from "../../tool.ts";
import { descriptionField, filesRoute, pathField, withFiles } from "./files.ts";
import { sessionIdParameter } from "./sessions.ts";

export const fileCreate = defineTool({
  name: "file_create",
  group: "files",
  title: "Create a file",
  description:
    'Create or overwrite a file (parents created); exact bytes as base64 with encoding "base64". For small edits use str_replace.',
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    path: pathField.describe("Under /workspace if relative"),
    // The schema admits the base64 text of 10 MiB; createFile holds text to 10 MiB characters.
    content: z
      .string()
      .max(base64Length(maxContentBytes))
      .describe('Text, or base64 with encoding "base64" (at most 10 MiB)'),
    encoding: z.enum(fileEncodings).default("utf-8").describe('"base64" for exact bytes'),
    description: descriptionField,
  }),
  output: z.object({ path: z.string(), size: z.number().int(), created: z.boolean() }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: filesRoute(""),
  // The tool takes the arguments docs/mcp.md lists; the other fields are REST-only.
  mcp: { omit: ["description"], saidByTool: ["encoding"] },
  uses: ["plugins", "sandboxRuntime", "storage"],
  handler: (context, input) =>
    withFiles(context, input.session_id, "file create", (files) => createFile(files, input), {
      path: input.path,
      operation: "create",
      bytes: (result) => result.size,
    }),
});
