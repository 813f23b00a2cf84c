"""The REST API's JSON shapes as ``TypedDict``s.

TypedDicts rather than dataclasses: a result is the server's JSON itself, so fields a newer
server adds pass through, ``json.dumps`` works on any result, and an export feeds an import with
no conversion; type checkers still check every field name and type. The operations' shapes are
generated from the server's operation registry (``_generated_types.py``, written by
``npm run contract``; a test fails when it is stale); the shapes of the tool listing are here. The
test suite compares these keys with the server's OpenAPI document (sdks/openapi.json).
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, TypedDict

from ._generated_types import (
    Account,
    AllowedCommandRule,
    AllowedCommands,
    ApiKey,
    ApiKeyCreated,
    BackgroundProcess,
    CommandRule,
    ExecResult,
    ExportMemory,
    ExportRelation,
    FileEntry,
    FileView,
    FileWritten,
    GlobResult,
    GrepMatch,
    GrepResult,
    HttpResponse,
    Image,
    ImageCreated,
    ImportMemory,
    ImportRelation,
    IngestResult,
    Listing,
    LspCompletion,
    LspStarted,
    LspStatus,
    McpConnection,
    Memory,
    MemoryExport,
    MemoryHit,
    MemoryKind,
    MemoryMetrics,
    MemoryProfile,
    MemoryRelations,
    ProcessInputResult,
    ProcessList,
    ProcessOutput,
    Relation,
    RelationType,
    Replacement,
    Sandbox,
    SandboxConnect,
    SandboxCreated,
    SandboxSize,
    SearchResult,
    Secret,
    TokenResponse,
    Usage,
    UsageSummary,
    Volume,
    VolumeCreated,
)

__all__ = [
    "Account",
    "AllowedCommandRule",
    "AllowedCommands",
    "ApiKey",
    "ApiKeyCreated",
    "BackgroundProcess",
    "CommandRule",
    "ExecEvent",
    "ExecExitEvent",
    "ExecOutputEvent",
    "ExecResult",
    "ExportMemory",
    "ExportRelation",
    "FileEntry",
    "FileView",
    "FileWritten",
    "GlobResult",
    "GrepMatch",
    "GrepResult",
    "HttpResponse",
    "Image",
    "ImageCreated",
    "ImportMemory",
    "ImportRelation",
    "IngestResult",
    "Listing",
    "LspCompletion",
    "LspStarted",
    "LspStatus",
    "McpConnection",
    "Memory",
    "MemoryExport",
    "MemoryHit",
    "MemoryKind",
    "MemoryMetrics",
    "MemoryProfile",
    "MemoryRelations",
    "OutputKeep",
    "ProcessEvent",
    "ProcessExitEvent",
    "ProcessInputResult",
    "ProcessList",
    "ProcessOutput",
    "ProcessOutputEvent",
    "ProcessStatus",
    "Relation",
    "RelationType",
    "Replacement",
    "Sandbox",
    "SandboxConnect",
    "SandboxCreated",
    "SandboxSize",
    "SearchResult",
    "Secret",
    "TokenResponse",
    "Tool",
    "ToolAnnotations",
    "ToolHttpRoute",
    "ToolList",
    "Usage",
    "UsageSummary",
    "Volume",
    "VolumeCreated",
]


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


ProcessStatus = Literal["running", "exited", "killed", "timed_out"]


class ProcessOutputEvent(TypedDict):
    """One chunk of a background process's output from its event stream (one of the two chunks
    is empty); ``next_offset`` is where a read or a new stream resumes after it."""

    type: Literal["output"]
    stdout_chunk: str
    stderr_chunk: str
    next_offset: int
    truncated: bool


class ProcessExitEvent(TypedDict):
    """The stream's last event: the process has ended and all its output was sent."""

    type: Literal["exit"]
    status: ProcessStatus
    exit_code: int | None
    next_offset: int


ProcessEvent = ProcessOutputEvent | ProcessExitEvent


#: Which part of an output a byte budget keeps (``max_output_bytes`` on exec and view,
#: ``max_bytes`` on process output): the head, the tail, or half of each with a marker between.
OutputKeep = Literal["head", "tail", "both"]


class _ExecOutputEventStderr(TypedDict, total=False):
    stderr_chunk: str


class ExecOutputEvent(_ExecOutputEventStderr):
    """A piece of a streamed exec's output, as the command wrote it; ``stderr_chunk`` is present
    only on stderr's pieces (``stdout_chunk`` is then ``""``)."""

    type: Literal["output"]
    stdout_chunk: str


class ExecExitEvent(TypedDict):
    """A streamed exec's last event: the JSON answer's fields without ``stdout`` and ``stderr``."""

    type: Literal["exit"]
    exit_code: int
    timed_out: bool
    truncated: bool
    stdout_omitted_bytes: int
    stderr_omitted_bytes: int
    duration_ms: int


ExecEvent = ExecOutputEvent | ExecExitEvent
