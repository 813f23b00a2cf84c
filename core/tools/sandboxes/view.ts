import { z } from "zod";
import { fileEncodings, viewFile } from "../../sandboxes/files/file-operations.ts";
import { defineTool } from "../../tool.ts";
import { descriptionField, filesRoute, pathField, withFiles } from "./files.ts";
import { sessionIdParameter } from "./sessions.ts";

export const view = defineTool({
  name: "view",
  group: "files",
  title: "View a file or directory",
  description:
    'Read a text file in a sandbox, whole or a line range, or list a directory\'s entries. View a file before str_replace to copy the exact text to replace. A file that is not UTF-8 text is refused (file_not_utf8) unless you ask for encoding "base64", which returns its exact bytes base64-encoded.',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    path: pathField.describe("File or directory path; relative paths resolve under /workspace"),
    // Two integers, written as an array of length 2 rather than a tuple: a tuple's JSON Schema
    // (prefixItems) means "no items at all" to draft-07 validators, which many MCP clients use.
    view_range: z
      .array(z.number().int())
      .length(2)
      .nullable()
      .optional()
      .describe("[start, end] lines, 1-indexed and inclusive; end -1 reads to the end"),
    encoding: z
      .enum(fileEncodings)
      .default("utf-8")
      .describe(
        '"utf-8" returns text (a file that is not UTF-8 is refused); "base64" returns the exact bytes',
      ),
    description: descriptionField,
  }),
  output: z.object({
    content: z.string(),
    encoding: z.enum(fileEncodings),
    lines: z.number().int(),
    is_directory: z.boolean(),
    entries: z.array(z.string()).nullable(),
  }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: filesRoute("/view"),
  // The tool takes the arguments docs/mcp.md lists; the other fields are REST-only.
  mcp: { omit: ["description"] },
  handler: (context, input) =>
    withFiles(
      context,
      input.session_id,
      "file view",
      // The schema holds the range to two integers.
      (files) =>
        viewFile(files, { ...input, view_range: input.view_range as [number, number] | null | undefined }),
      {
        path: input.path,
        operation: "view",
      },
    ),
});
