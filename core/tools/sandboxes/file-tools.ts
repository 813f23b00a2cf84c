/**
 * The six file operations of CONTRACT.md §2.7 as registry tools. Each resolves the session
 * (owned and active), then runs the runtime-independent operation from core/sandboxes over the
 * runtime's file access; paths outside the sandbox's roots are 403 path_outside_sandbox there.
 */
import { z } from "zod";
import {
  createFile,
  globFiles,
  grepFiles,
  listDirectory,
  maxContentCharacters,
  strReplace,
  viewFile,
} from "../../sandboxes/file-operations.ts";
import { defineTool, type ToolContext } from "../../tool.ts";
import { requireActiveSession, runtimeCall, sessionIdParameter } from "./sessions.ts";

const description = z.string().max(500).optional().describe("Why you make this call, in a few words");
const path = z.string().min(1).max(4096);
const entry = z.object({
  path: z.string(),
  is_dir: z.boolean(),
  size: z.number().int(),
  modified_at: z.string(),
});

async function withFiles<T>(
  context: ToolContext,
  sessionId: string,
  action: string,
  work: (files: ReturnType<ToolContext["platform"]["sandboxRuntime"]["files"]>) => Promise<T>,
) {
  const session = await requireActiveSession(context, sessionId);
  return runtimeCall(context, action, () => work(context.platform.sandboxRuntime.files(session.id)));
}

const binding = (suffix: string) => ({
  method: "POST" as const,
  path: `/v1/sandboxes/:session_id/files${suffix}`,
  status: 200,
});

export const fileCreate = defineTool({
  name: "file_create",
  group: "files",
  title: "Create a file",
  description:
    "Create or overwrite a text file in a sandbox; parent directories are created. Relative paths resolve under /workspace. For small edits to an existing file use str_replace.",
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    path: path.describe("File path; relative paths resolve under /workspace"),
    content: z.string().max(maxContentCharacters).describe("The whole file content"),
    description,
  }),
  output: z.object({ path: z.string(), size: z.number().int(), created: z.boolean() }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: binding(""),
  mcp: {},
  handler: (context, input) =>
    withFiles(context, input.session_id, "file create", (files) => createFile(files, input)),
});

export const view = defineTool({
  name: "view",
  group: "files",
  title: "View a file or directory",
  description:
    "Read a text file in a sandbox, whole or a line range, or list a directory's entries. View a file before str_replace to copy the exact text to replace.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    path: path.describe("File or directory path; relative paths resolve under /workspace"),
    view_range: z
      .tuple([z.number().int(), z.number().int()])
      .nullable()
      .optional()
      .describe("[start, end] lines, 1-indexed and inclusive; end -1 reads to the end"),
    description,
  }),
  output: z.object({
    content: z.string(),
    lines: z.number().int(),
    is_directory: z.boolean(),
    entries: z.array(z.string()).nullable(),
  }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: binding("/view"),
  mcp: {},
  handler: (context, input) =>
    withFiles(context, input.session_id, "file view", (files) => viewFile(files, input)),
});

export const strReplaceTool = defineTool({
  name: "str_replace",
  group: "files",
  title: "Replace text in a file",
  description:
    "Edit a file in a sandbox by replacing old_str with new_str. old_str must occur exactly once (include surrounding lines to make it unique) unless replace_all is true.",
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    path: path.describe("File path; relative paths resolve under /workspace"),
    old_str: z
      .string()
      .min(1)
      .max(maxContentCharacters)
      .describe("Exact text to replace, whitespace included"),
    new_str: z.string().max(maxContentCharacters).describe("Replacement text; empty deletes old_str"),
    replace_all: z.boolean().default(false).describe("Replace every occurrence, not exactly one"),
    description,
  }),
  output: z.object({ path: z.string(), replaced: z.number().int(), occurrences: z.number().int() }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: binding("/str-replace"),
  mcp: {},
  handler: (context, input) =>
    withFiles(context, input.session_id, "file edit", (files) => strReplace(files, input)),
});

export const ls = defineTool({
  name: "ls",
  group: "files",
  title: "List a directory",
  description:
    "List a directory in a sandbox: each entry's path (directories end with /), size and modified_at, sorted by path. Use glob to find files deeper down.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    path: path.default("/").describe('Directory to list; "/" means /workspace'),
  }),
  output: z.object({ entries: z.array(entry) }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: binding("/ls"),
  mcp: {},
  handler: (context, input) =>
    withFiles(context, input.session_id, "file list", (files) => listDirectory(files, input)),
});

export const glob = defineTool({
  name: "glob",
  group: "files",
  title: "Find files by pattern",
  description:
    "Find files in a sandbox by glob pattern (e.g. **/*.py) below a directory; returns their paths, sizes and modified_at. Use grep to search inside files.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    pattern: z.string().min(1).max(1000).describe("Glob pattern, e.g. **/*.ts"),
    path: path.default("/").describe('Directory to search below; "/" means /workspace'),
  }),
  output: z.object({ matches: z.array(entry) }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: binding("/glob"),
  mcp: {},
  handler: (context, input) =>
    withFiles(context, input.session_id, "file glob", (files) => globFiles(files, input)),
});

export const grep = defineTool({
  name: "grep",
  group: "files",
  title: "Search file contents",
  description:
    "Search file contents in a sandbox with a regular expression; returns each matching line's path, line number and text, at most max_matches. An invalid regex or a timeout comes back in error.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    pattern: z.string().min(1).max(1000).describe("Regular expression to search for"),
    path: path.default("/").describe('Directory to search below; "/" means /workspace'),
    glob: z.string().max(1000).nullable().optional().describe("Only files matching this glob, e.g. *.py"),
    max_matches: z.number().int().min(1).max(5000).default(500).describe("Most matching lines to return"),
  }),
  output: z.object({
    matches: z.array(z.object({ path: z.string(), line: z.number().int(), text: z.string() })),
    error: z.string().nullable(),
    truncated: z.boolean(),
  }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: binding("/grep"),
  mcp: {},
  handler: (context, input) =>
    withFiles(context, input.session_id, "file grep", (files) => grepFiles(files, input)),
});
