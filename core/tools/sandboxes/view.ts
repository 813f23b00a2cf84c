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
    'Read a text file (whole or a view_range) or list a directory; view before str_replace. Not UTF-8: refused unless encoding is "base64". Text past max_output_bytes is cut, a marker naming the lines cut.',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    path: pathField.describe("Under /workspace if relative"),
    // Two integers, written as an array of length 2 rather than a tuple: a tuple's JSON Schema
    // (prefixItems) means "no items at all" to draft-07 validators, which many MCP clients use.
    view_range: z
      .array(z.number().int())
      .length(2)
      .nullable()
      .optional()
      .describe("[start, end] lines, 1-indexed, inclusive; end -1: to the end"),
    encoding: z.enum(fileEncodings).default("utf-8").describe('"base64": the exact bytes'),
    description: descriptionField,
    max_output_bytes: maxOutputBytesField(maxViewBytes, "the text (after view_range)"),
    keep: keepField("head"),
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
  mcp: {
    omit: ["description"],
    defaults: { max_output_bytes: mcpViewBudgetBytes },
    // `path`: the server's instructions say where relative paths are.
    saidByTool: ["max_output_bytes", "encoding", "keep", "path"],
  },
  uses: ["plugins", "sandboxRuntime", "storage"],
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
