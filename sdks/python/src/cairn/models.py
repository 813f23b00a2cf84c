"""The REST API's JSON shapes as ``TypedDict``s.

TypedDicts rather than dataclasses: a result is the server's JSON itself, so fields a newer
server adds pass through, ``json.dumps`` works on any result, and an export feeds an import with
no conversion; type checkers still check every field name and type. The test suite compares
these keys with the server's OpenAPI document (sdks/openapi.json).
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, TypedDict

MemoryKind = Literal["fact", "preference", "goal", "instruction", "note", "summary"]
RelationType = Literal["updates", "extends", "related", "derives"]
SandboxSize = Literal["small", "medium", "large"]


class Account(TypedDict):
    id: str
    email: str
    created_at: str


class TokenResponse(TypedDict):
    access_token: str
    token_type: Literal["bearer"]
    expires_in: int
    account: Account


class ApiKey(TypedDict):
    id: str
    name: str
    prefix: str
    created_at: str
    revoked_at: str | None
    last_used_at: str | None


class ApiKeyCreated(ApiKey):
    #: The raw key, returned exactly once.
    key: str


class UsageSummary(TypedDict):
    monthly_sandbox_hours_used: float
    monthly_sandbox_hours_limit: float
    concurrent_sandboxes: int
    concurrent_sandboxes_limit: int
    total_sandboxes_created: int


class Usage(UsageSummary):
    sandbox_ops_rate_limit_remaining: int
    sandbox_ops_rate_limit: int


class CommandRule(TypedDict):
    command: str
    args_allow: List[str]
    args_deny: List[str]


#: An allowlist entry: a command name, or a command with argument patterns.
AllowedCommandRule = str | CommandRule


class AllowedCommands(TypedDict):
    rules: List[AllowedCommandRule]


class SandboxConnect(TypedDict):
    pod_name: str | None
    note: str


class Sandbox(TypedDict):
    id: str
    status: Literal["active", "destroyed"]
    label: str | None
    created_at: str
    destroyed_at: str | None
    expires_at: str
    ended_reason: Literal["destroyed", "expired"] | None
    runtime: Literal["local", "kubernetes"]
    connect: SandboxConnect | None


class SandboxCreated(Sandbox):
    usage: UsageSummary


class ExecResult(TypedDict):
    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool
    truncated: bool
    duration_ms: int


class HttpResponse(TypedDict):
    status_code: int
    headers: Dict[str, str]
    body: str
    truncated: bool


class FileWritten(TypedDict):
    path: str
    size: int
    created: bool


class FileView(TypedDict):
    content: str
    lines: int
    is_directory: bool
    entries: List[str] | None


class Replacement(TypedDict):
    path: str
    replaced: int
    occurrences: int


class FileEntry(TypedDict):
    path: str
    is_dir: bool
    size: int
    modified_at: str


class Listing(TypedDict):
    entries: List[FileEntry]


class GlobResult(TypedDict):
    matches: List[FileEntry]


class GrepMatch(TypedDict):
    path: str
    line: int
    text: str


class GrepResult(TypedDict):
    matches: List[GrepMatch]
    error: str | None
    truncated: bool


class LspStarted(TypedDict):
    lsp_id: str


class LspStatus(TypedDict):
    status: str


class LspCompletion(TypedDict):
    #: Raw LSP CompletionItem objects.
    items: List[Dict[str, Any]]


class ImageCreated(TypedDict):
    id: str
    label: str | None
    status: Literal["queued", "completed"]
    created_at: str


class Image(TypedDict):
    id: str
    label: str | None
    base: str
    python_packages: List[str]
    apt_packages: List[str]
    npm_packages: List[str]
    status: Literal["queued", "building", "completed", "failed"]
    digest: str | None
    registry_ref: str | None
    failure_reason: str | None
    build_log_tail: str | None
    created_at: str
    completed_at: str | None


class VolumeCreated(TypedDict):
    id: str
    label: str | None
    status: Literal["queued"]
    created_at: str


class Volume(TypedDict):
    id: str
    label: str | None
    size_gb: float
    status: Literal["queued", "creating", "ready", "failed", "deleting"]
    pvc_name: str | None
    used_bytes: int | None
    failure_reason: str | None
    created_at: str


class Secret(TypedDict):
    id: str
    name: str
    allowed_hosts: List[str]
    created_at: str
    last_used_at: str | None


class McpConnection(TypedDict):
    id: str
    label: str
    catalog_id: str
    host: str
    created_at: str
    last_used_at: str | None


class Memory(TypedDict):
    id: str
    scope: str
    kind: MemoryKind
    content: str
    metadata: Dict[str, Any]
    source_session_id: str | None
    created_at: str
    updated_at: str
    expires_at: str | None
    source_content: str | None
    document_date: str | None
    event_dates: List[str]
    importance: float
    access_count: int
    last_accessed_at: str | None
    superseded_at: str | None
    superseded_by_id: str | None


class MemoryHit(Memory):
    score: float


class _SearchResultBase(TypedDict):
    query: str
    memories: List[MemoryHit]


class SearchResult(_SearchResultBase, total=False):
    warnings: List[str]
    """Present only when semantic search could not take part: the results are lexical only."""


class MemoryProfile(TypedDict):
    static: List[Memory]
    dynamic: List[Memory]


class IngestResult(TypedDict):
    source_session_id: str | None
    memories: List[Memory]


class MemoryMetrics(TypedDict):
    total_memories: int
    by_kind: Dict[str, int]
    embedded_memories: int
    embedding_coverage: float
    embedding_model_id: str | None


class Relation(TypedDict):
    source_memory_id: str
    target_memory_id: str
    relation_type: RelationType
    confidence: float
    created_at: str


class MemoryRelations(TypedDict):
    memory_id: str
    relations: List[Relation]


class ExportMemory(TypedDict):
    id: str
    scope: str
    kind: MemoryKind
    content: str
    metadata: Dict[str, Any]
    source_session_id: str | None
    source_content: str | None
    document_date: str | None
    event_dates: List[str]
    importance: float
    created_at: str
    updated_at: str
    expires_at: str | None
    superseded_at: str | None
    superseded_by_id: str | None


class ExportRelation(TypedDict):
    source_memory_id: str
    target_memory_id: str
    relation_type: RelationType
    confidence: float


class MemoryExport(TypedDict):
    version: int
    memories: List[ExportMemory]
    relations: List[ExportRelation]


class _ImportMemoryRequired(TypedDict):
    content: str


class ImportMemory(_ImportMemoryRequired, total=False):
    """One memory to import; ``id`` only links relations inside the batch (the server assigns new ids)."""

    id: str | None
    scope: str
    kind: MemoryKind
    metadata: Dict[str, Any]
    source_session_id: str | None
    expires_at: str | None
    source_content: str | None
    document_date: str | None
    event_dates: List[str]
    importance: float


class _ImportRelationRequired(TypedDict):
    source_memory_id: str
    target_memory_id: str
    relation_type: RelationType


class ImportRelation(_ImportRelationRequired, total=False):
    confidence: float


class ToolAnnotations(TypedDict):
    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool


class ToolHttpRoute(TypedDict):
    method: str
    path: str


class Tool(TypedDict):
    """One tool the server offers: a built-in operation, or a plugin's (``<plugin>.<tool>``)."""

    name: str
    plugin: str | None
    group: str
    title: str
    description: str
    annotations: ToolAnnotations
    input_schema: Dict[str, Any]
    output_schema: Dict[str, Any]
    mcp_name: str | None
    http: ToolHttpRoute | None


class ToolList(TypedDict):
    tools: List[Tool]
