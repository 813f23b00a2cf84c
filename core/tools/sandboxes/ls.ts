import { z } from "zod";
import { listDirectory } from "../../sandboxes/files/file-operations.ts";
import { defineTool } from "../../tool.ts";
import { fileEntry, filesRoute, pathField, withFiles } from "./files.ts";
import { sessionIdParameter } from "./sessions.ts";

export const ls = defineTool({
  name: "ls",
  group: "files",
  title: "List a directory",
  description: "List a directory: each entry's path (directories end with /), size and modified_at.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    path: pathField.default("/").describe('"/" means /workspace'),
  }),
  output: z.object({ entries: z.array(fileEntry) }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: filesRoute("/ls"),
  mcp: {},
  uses: ["plugins", "sandboxRuntime", "storage"],
  handler: (context, input) =>
    withFiles(context, input.session_id, "file list", (files) => listDirectory(files, input), {
      path: input.path,
      operation: "list",
    }),
});
