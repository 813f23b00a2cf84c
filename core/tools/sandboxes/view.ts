import { z } from "zod";
import { maxViewBytes } from "../../sandboxes/files/file-entries.ts";
import { fileEncodings, viewFile } from "../../sandboxes/files/file-operations.ts";
import { budgetViewContent, mcpViewBudgetBytes } from "../../sandboxes/output-budget.ts";
import { defineTool } from "../../tool.ts";
import { descriptionField, filesRoute, pathField, withFiles } from "./files.ts";
import { keepField, maxOutputBytesField } from "./output-budget-fields.ts";
import { sessionIdParameter } from "./sessions.ts";

export const view = defineTool({
  name: "view",
  group: "files",
  title: "View a file or directory",
  description:
    'Read a text file in a sandbox, whole or a line range, or list a directory\'s entries. View a file before str_replace to copy the exact text to replace. A file that is not UTF-8 text is refused (file_not_utf8) unless you ask for encoding "base64", which returns its exact bytes base64-encoded (whole: the budget below is for text). Over MCP a text answer is cut to 32 KiB by default (max_output_bytes, keep: the head, a marker saying which lines were cut); read the rest with a view_range or a larger max_output_bytes.',
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
    max_output_bytes: maxOutputBytesField(maxViewBytes, "the text (after view_range)"),
    keep: keepField("head", "head by default: a file reads from the top"),
  }),
  output: z.object({
    content: z.string(),
    encoding: z.enum(fileEncodings),
    lines: z.number().int(),
    is_directory: z.boolean(),
    entries: z.array(z.string()).nullable(),
    truncated: z.boolean(),
    omitted_bytes: z.number().int(),
    omitted_lines: z.array(z.number().int()).length(2).nullable(),
  }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: filesRoute("/view"),
  // The tool takes the arguments docs/mcp.md lists; the other fields are REST-only.
  // MCP: a budget that fits an agent's context (and MCP's 4 MiB result limit) unless the client asks for more.
  mcp: { omit: ["description"], defaults: { max_output_bytes: mcpViewBudgetBytes } },
  handler: (context, input) =>
    withFiles(
      context,
      input.session_id,
      "file view",
      async (files) => {
        // The schema holds the range to two integers.
        const range = input.view_range as [number, number] | null | undefined;
        const viewed = await viewFile(files, { ...input, view_range: range });
        const budget =
          viewed.is_directory || viewed.encoding === "base64" ? undefined : input.max_output_bytes;
        const cut = budgetViewContent(viewed.content, range?.[0] ?? 1, budget, input.keep);
        return {
          ...viewed,
          content: cut.content,
          truncated: cut.omittedBytes > 0,
          omitted_bytes: cut.omittedBytes,
          omitted_lines: cut.omittedLines,
        };
      },
      {
        path: input.path,
        operation: "view",
      },
    ),
});
