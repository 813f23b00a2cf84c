import { z } from "zod";
import { ServiceError } from "../../errors.ts";
import { withKindNames } from "../../sandboxes/lsp/completion-kinds.ts";
import { defineTool } from "../../tool.ts";
import { runtimeCall, sessionIdParameter } from "../sandboxes/sessions.ts";
import { documentPathField, lspEnabled, lspIdParameter, lspRoute, requireLanguageServer } from "./schemas.ts";

function positionProblem(text: string, line: number, character: number): ValidationProblem | null {
  const lines = text.split(/\r\n|\r|\n/);
  if (line >= lines.length)
    return { field: "line", msg: `The document has ${lines.length} lines (0-indexed)` };
  const length = (lines[line] as string).length;
  if (character > length) return { field: "character", msg: `Line ${line} has ${length} characters` };
  return null;
}

interface ValidationProblem {
  field: string;
  msg: string;
}

const invalid = (problem: ValidationProblem) =>
  new ServiceError("validation_error", "Invalid request", {
    details: [{ type: "value_error", loc: [problem.field], msg: problem.msg }],
  });

export const lspCompletion = defineTool({
  name: "lsp_completion",
  group: "lsp",
  title: "Get completions",
  description:
    "Completion items (label, kind, detail, docs) at a 0-indexed line and character (UTF-16 units) of a document opened with lsp_open.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    lsp_id: lspIdParameter,
    path: documentPathField,
    line: z.number().int().min(0).describe("0-indexed line"),
    character: z.number().int().min(0).describe("0-indexed, in UTF-16 code units"),
  }),
  output: z.object({
    items: z.array(z.record(z.string(), z.unknown())).describe("Raw LSP CompletionItem objects"),
  }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: lspRoute(":lsp_id/completion"),
  // A model reads kind names; REST clients get the protocol's numbers.
  mcp: {
    // `path`: the server's instructions say where relative paths are.
    saidByTool: ["line", "character", "path"],
    present: (output) => ({ items: withKindNames((output as { items: unknown[] }).items) }),
  },
  enabled: lspEnabled,
  uses: ["languageServers", "sandboxRuntime", "storage"],
  async handler(context, input) {
    const { client, path } = await requireLanguageServer(context, input);
    const text = client.documentText(path as string);
    if (text === undefined) {
      throw invalid({
        field: "path",
        msg: "Not opened in this language server; call lsp_open with it first",
      });
    }
    const problem = positionProblem(text, input.line, input.character);
    if (problem) throw invalid(problem);
    const items = await runtimeCall(context, "language server completion", () =>
      client.completion(path as string, input.line, input.character),
    );
    return {
      items: items.filter((item) => typeof item === "object" && item !== null) as Record<string, unknown>[],
    };
  },
});
