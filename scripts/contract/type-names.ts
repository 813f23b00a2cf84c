/**
 * What each SDK calls the manifest's types, where the name is not simply taken from where the type
 * is first met (`recall.output.memories[]` would be `RecallOutputMemories`). The names are the ones
 * each SDK's users already use; a new operation's types need no entry unless a better name is
 * wanted. Places are written as in type-model.ts: `<operation>.output.<field>[]|<choice>`.
 */
import type { TypeName } from "./type-model.ts";

/** TypeScript and Python (`embed`: an intersection in TypeScript, a base class in Python). */
export const commonNames: readonly TypeName[] = [
  { at: "signup.output", name: "TokenResponse", doc: "What signup and login return: a dashboard token." },
  { at: "signup.output.account", name: "Account" },
  { at: "list_api_keys.output[]", name: "ApiKey" },
  {
    at: "create_api_key.output",
    name: "ApiKeyCreated",
    doc: "A new key; `key` is the raw key, returned once.",
    embed: { type: "ApiKey" },
  },
  { at: "create_sandbox.output|0.usage", name: "UsageSummary" },
  { at: "get_usage.output", name: "Usage", embed: { type: "UsageSummary" } },
  { at: "get_allowed_commands.output", name: "AllowedCommands" },
  {
    at: "get_allowed_commands.output.rules[]",
    name: "AllowedCommandRule",
    doc: "An allowlist entry: a command name, or a command with argument patterns.",
  },
  { at: "get_allowed_commands.output.rules[]|1", name: "CommandRule" },
  { at: "get_sandbox.output", name: "Sandbox" },
  { at: "get_sandbox.output.connect", name: "SandboxConnect" },
  { at: "create_sandbox.output|0", name: "SandboxCreated", embed: { type: "Sandbox" } },
  { at: "create_sandbox.input.size", name: "SandboxSize" },
  { at: "exec.output", name: "ExecResult" },
  { at: "http_request.output", name: "HttpResponse" },
  { at: "file_create.output", name: "FileWritten" },
  { at: "view.output", name: "FileView" },
  { at: "str_replace.output", name: "Replacement" },
  { at: "ls.output.entries[]", name: "FileEntry" },
  { at: "ls.output", name: "Listing" },
  { at: "glob.output", name: "GlobResult" },
  { at: "grep.output.matches[]", name: "GrepMatch" },
  { at: "grep.output", name: "GrepResult" },
  { at: "lsp_start.output", name: "LspStarted" },
  { at: "lsp_open.output", name: "LspStatus" },
  { at: "lsp_stop.output", name: "LspStatus" },
  { at: "lsp_completion.output", name: "LspCompletion" },
  { at: "create_sandbox_image.output", name: "ImageCreated" },
  { at: "get_sandbox_image.output", name: "Image" },
  { at: "create_sandbox_volume.output", name: "VolumeCreated" },
  { at: "get_sandbox_volume.output", name: "Volume" },
  { at: "create_secret.output", name: "Secret" },
  { at: "create_mcp_connection.output", name: "McpConnection" },
  { at: "get_memory.output", name: "Memory" },
  { at: "get_memory.output.kind", name: "MemoryKind" },
  { at: "recall.output.memories[]", name: "MemoryHit", embed: { type: "Memory" } },
  { at: "recall.output", name: "SearchResult" },
  { at: "memory_profile.output", name: "MemoryProfile" },
  { at: "ingest_memory.output", name: "IngestResult" },
  { at: "import_memories.output", name: "IngestResult" },
  { at: "memory_metrics.output", name: "MemoryMetrics" },
  { at: "memory_relations.output.relations[]", name: "Relation" },
  { at: "memory_relations.output.relations[].relation_type", name: "RelationType" },
  { at: "memory_relations.output", name: "MemoryRelations" },
  { at: "export_memories.output.memories[]", name: "ExportMemory" },
  { at: "export_memories.output.relations[]", name: "ExportRelation" },
  { at: "export_memories.output", name: "MemoryExport" },
  {
    at: "import_memories.input.memories[]",
    name: "ImportMemory",
    doc: "One memory to import; `id` only links relations inside the batch (the server assigns new ids).",
  },
  { at: "import_memories.input.relations[]", name: "ImportRelation" },
];

/** Go: Go's initialisms, embedded structs, and the types written by hand for their JSON methods. */
export const goNames: readonly TypeName[] = [
  {
    at: "signup.output",
    name: "TokenResponse",
    doc: "is what Signup and Login return: a dashboard token for the key routes.",
  },
  { at: "signup.output.account", name: "Account", doc: "is who a credential belongs to." },
  { at: "list_api_keys.output[]", name: "APIKey", doc: "is one API key as listed (never its secret part)." },
  {
    at: "create_api_key.output",
    name: "APIKeyCreated",
    doc: "is a new key; Key is the raw key, returned exactly once.",
    embed: { type: "APIKey" },
  },
  {
    at: "create_sandbox.output|0.usage",
    name: "UsageSummary",
    doc: "is the account's sandbox usage against its caps.",
  },
  {
    at: "get_usage.output",
    name: "UsageDetail",
    doc: "is UsageSummary plus the sandbox-operations rate limit.",
    embed: { type: "UsageSummary" },
  },
  {
    at: "get_allowed_commands.output",
    name: "AllowedCommands",
    doc: "is the account's allowlist; no rules means unrestricted.",
  },
  // A string or an object on the wire: types_account.go reads and writes both.
  { at: "get_allowed_commands.output.rules[]", name: "CommandRule", handwritten: true },
  { at: "get_sandbox.output", name: "Sandbox", doc: "is one sandbox session, active or destroyed." },
  { at: "get_sandbox.output.connect", name: "SandboxConnect", doc: "says how to reach an active sandbox." },
  {
    at: "create_sandbox.output|0",
    name: "SandboxCreated",
    doc: "is a new sandbox and the account's usage after creating it.",
    embed: { type: "Sandbox" },
  },
  { at: "exec.output", name: "ExecResult", doc: "is what the command did." },
  {
    at: "http_request.output",
    name: "SandboxHTTPResponse",
    doc: "is the broker's answer, with secret values redacted.",
  },
  { at: "file_create.output", name: "FileWritten", doc: "is the file as written." },
  { at: "view.output", name: "FileView", doc: "is a file's content." },
  { at: "str_replace.output", name: "StrReplaceResult", doc: "counts what changed." },
  {
    at: "ls.output.entries[]",
    name: "FileEntry",
    doc: 'is one file or directory (directories end with "/").',
  },
  { at: "ls.output", name: "LsResult", doc: "lists a directory, sorted by path." },
  { at: "glob.output", name: "GlobResult", doc: "is the matching files." },
  { at: "grep.output.matches[]", name: "GrepMatch", doc: "is one matching line." },
  {
    at: "grep.output",
    name: "GrepResult",
    doc: "is the matches; Error says why a search stopped (an invalid regex, a timeout).",
  },
  { at: "lsp_start.output", name: "LSPStarted", doc: "names a language server running in the sandbox." },
  { at: "lsp_open.output", name: "LSPStatus", doc: 'is "opened" or "stopped".' },
  { at: "lsp_stop.output", name: "LSPStatus" },
  { at: "lsp_completion.output", name: "LSPCompletion", doc: "is the raw LSP CompletionItem objects." },
  {
    at: "create_sandbox_image.output",
    name: "ImageCreated",
    doc: 'is a queued build ("completed" at once when the same spec was built lately).',
  },
  { at: "get_sandbox_image.output", name: "Image", doc: "is a custom image and its build's state." },
  { at: "create_sandbox_volume.output", name: "VolumeCreated", doc: "is a queued volume." },
  { at: "get_sandbox_volume.output", name: "Volume", doc: "is a volume and its state." },
  { at: "create_secret.output", name: "Secret", doc: "is a stored secret; its value is never returned." },
  { at: "create_mcp_connection.output", name: "MCPConnection", doc: "is a named egress grant." },
  { at: "get_memory.output", name: "Memory", doc: "is one stored memory." },
  {
    at: "recall.output.memories[]",
    name: "ScoredMemory",
    doc: "is a recall hit.",
    embed: { type: "Memory" },
  },
  { at: "recall.output", name: "RecallResult", doc: "is the hits for a query, best first." },
  {
    at: "memory_profile.output",
    name: "MemoryProfile",
    doc: "is what the account knows: lasting facts, preferences and instructions (Static) and recent goals, notes and summaries (Dynamic).",
  },
  { at: "ingest_memory.output", name: "MemoryBatch", doc: "is the memories an ingest or import wrote." },
  { at: "import_memories.output", name: "MemoryBatch" },
  { at: "memory_metrics.output", name: "MemoryMetrics", doc: "counts the account's memories." },
  { at: "memory_relations.output.relations[]", name: "MemoryRelation", doc: "links two memories." },
  { at: "memory_relations.output", name: "MemoryRelations", doc: "is one memory's links." },
  // Both what an export answers and what an import sends, so every field is optional: types_memory.go.
  { at: "export_memories.output.memories[]", name: "MemoryRecord", handwritten: true },
  { at: "export_memories.output.relations[]", name: "RelationRecord", handwritten: true },
  {
    at: "export_memories.output",
    name: "MemoryExport",
    doc: "is every memory of a scope (or the account) and their relations.",
  },
];

/** Go field types other than `int`, `float64` and `string` (sizes in bytes can pass 2 GiB). */
export const goFieldTypes: Readonly<Record<string, string>> = {
  "file_create.output.size": "int64",
  "ls.output.entries[].size": "int64",
  "get_sandbox_volume.output.used_bytes": "int64",
};

/** Rust: flattened structs, enums for the vocabularies a caller sends, the handwritten untagged rule. */
export const rustNames: readonly TypeName[] = [
  {
    at: "signup.output",
    name: "TokenResponse",
    doc: "What signup and login return: a dashboard token for the API-key routes.",
  },
  { at: "signup.output.account", name: "Account" },
  { at: "list_api_keys.output[]", name: "ApiKey" },
  {
    at: "create_api_key.output",
    name: "ApiKeyCreated",
    doc: "A new key; `key` is the raw API key, returned this once only.",
    embed: { type: "ApiKey", field: "api_key" },
  },
  { at: "create_sandbox.output|0.usage", name: "Usage", doc: "Sandbox usage against the account's caps." },
  {
    at: "get_usage.output",
    name: "UsageDetail",
    doc: "[`Usage`] plus the `sandbox_ops` rate-limit headroom.",
    embed: { type: "Usage", field: "usage" },
  },
  {
    at: "get_allowed_commands.output",
    name: "AllowedCommands",
    doc: "The account's allowlist; empty means every command is allowed.",
  },
  // An untagged enum (a name, or a command with patterns): types/account.rs.
  { at: "get_allowed_commands.output.rules[]", name: "CommandRule", handwritten: true },
  { at: "get_sandbox.output", name: "Sandbox" },
  { at: "get_sandbox.output.connect", name: "SandboxConnect" },
  {
    at: "create_sandbox.output|0",
    name: "SandboxCreated",
    doc: "A new sandbox and the account's usage after creating it.",
    embed: { type: "Sandbox", field: "sandbox" },
  },
  { at: "create_sandbox.input.size", name: "SandboxSize", doc: "CPU and memory class of a sandbox." },
  { at: "exec.output", name: "ExecResult" },
  { at: "http_request.output", name: "HttpResponse" },
  { at: "file_create.output", name: "FileWritten" },
  { at: "view.output", name: "FileView" },
  { at: "str_replace.output", name: "StrReplaceResult" },
  { at: "ls.output.entries[]", name: "FileEntry" },
  { at: "ls.output", name: "FileList" },
  { at: "glob.output", name: "GlobResult" },
  { at: "grep.output.matches[]", name: "GrepMatch" },
  { at: "grep.output", name: "GrepResult" },
  { at: "lsp_start.output", name: "LspStarted" },
  { at: "lsp_open.output", name: "LspStatus", doc: '"opened" or "stopped".' },
  { at: "lsp_stop.output", name: "LspStatus" },
  { at: "lsp_completion.output", name: "LspCompletion" },
  {
    at: "create_sandbox_image.output",
    name: "Queued",
    doc: "The answer to a build request, or a volume creation: the build or provisioning goes on after it.",
  },
  { at: "create_sandbox_volume.output", name: "Queued" },
  { at: "get_sandbox_image.output", name: "Image" },
  { at: "get_sandbox_volume.output", name: "Volume" },
  { at: "create_secret.output", name: "Secret", doc: "A secret's description; its value is never returned." },
  { at: "create_mcp_connection.output", name: "McpConnection" },
  { at: "get_memory.output", name: "Memory" },
  { at: "get_memory.output.kind", name: "MemoryKind" },
  {
    at: "recall.output.memories[]",
    name: "SearchHit",
    embed: { type: "Memory", field: "memory" },
  },
  { at: "recall.output", name: "SearchResult" },
  {
    at: "memory_profile.output",
    name: "MemoryProfile",
    doc: "Durable knowledge (`static`: facts, preferences, instructions) and current work (`dynamic`: goals, notes, summaries).",
  },
  {
    at: "ingest_memory.output",
    name: "MemoryBatch",
    doc: "The memories made from one ingested text (or one import), in order.",
  },
  { at: "import_memories.output", name: "MemoryBatch" },
  { at: "memory_metrics.output", name: "MemoryMetrics" },
  { at: "memory_relations.output.relations[]", name: "MemoryRelation" },
  { at: "memory_relations.output.relations[].relation_type", name: "RelationType" },
  { at: "memory_relations.output", name: "MemoryRelations" },
  { at: "export_memories.output.memories[]", name: "ExportedMemory" },
  { at: "export_memories.output.relations[]", name: "ExportedRelation" },
  {
    at: "export_memories.output",
    name: "MemoryExport",
    doc: "Everything an account (or a scope) remembers; it imports as it is.",
  },
  {
    at: "import_memories.input.memories[]",
    name: "ImportMemory",
    doc: "A memory to import. `id` only links relations inside the batch; the server assigns new ids. Fields left `None` take the server's defaults.",
  },
  {
    at: "import_memories.input.relations[]",
    name: "ImportRelation",
    doc: "A relation between two memories of an import batch, by their batch `id`s.",
  },
];

/** Rust integer types other than `u64`. */
export const rustFieldTypes: Readonly<Record<string, string>> = {
  "exec.output.exit_code": "i32",
  "http_request.output.status_code": "u16",
  "create_sandbox.output|0.usage.concurrent_sandboxes": "u32",
  "create_sandbox.output|0.usage.concurrent_sandboxes_limit": "u32",
  "get_usage.output.sandbox_ops_rate_limit_remaining": "u32",
  "get_usage.output.sandbox_ops_rate_limit": "u32",
  "export_memories.output.version": "u32",
};

/** Rust field names for wire names that are Rust keywords. */
export const rustFieldNames: Readonly<Record<string, string>> = {
  "memory_profile.output.static": "static_memories",
  "memory_profile.output.dynamic": "dynamic_memories",
};
