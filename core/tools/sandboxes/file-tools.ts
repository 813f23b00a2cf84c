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

const description = z.string().max(500).optional();
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
  description: "Create or overwrite a file in a sandbox (parent directories are created).",
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    path,
    content: z.string().max(maxContentCharacters),
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
    "Read a file (optionally a 1-indexed [start, end] line range; end -1 = to the end) or list a directory.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    path,
    view_range: z.tuple([z.number().int(), z.number().int()]).nullable().optional(),
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
  description: "Replace old_str with new_str in a file; old_str must occur exactly once unless replace_all.",
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    path,
    old_str: z.string().min(1).max(maxContentCharacters),
    new_str: z.string().max(maxContentCharacters),
    replace_all: z.boolean().default(false),
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
  description: "List a directory of a sandbox (directories end with /).",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({ session_id: sessionIdParameter, path: path.default("/") }),
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
  description: "Find files by glob pattern (e.g. **/*.py) below a directory.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    pattern: z.string().min(1).max(1000),
    path: path.default("/"),
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
    "Search file contents with a regular expression; optional glob filter; at most max_matches lines.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    pattern: z.string().min(1).max(1000),
    path: path.default("/"),
    glob: z.string().max(1000).nullable().optional(),
    max_matches: z.number().int().min(1).max(5000).default(500),
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
