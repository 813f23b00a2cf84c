"""Memory. Every call sends its defaults explicitly (scope "default", kind "fact", metadata {},
importance 0.5; listing sends include_superseded, limit and offset), so a server with other
defaults still stores what this SDK documents."""

from __future__ import annotations

from typing import Any, List, Mapping, Sequence

from .._core import Call, segment
from .._generated_types import (
    DEFAULT_INGEST_MEMORY_KIND,
    DEFAULT_INGEST_MEMORY_SCOPE,
    DEFAULT_LIST_MEMORIES_INCLUDE_SUPERSEDED,
    DEFAULT_LIST_MEMORIES_LIMIT,
    DEFAULT_LIST_MEMORIES_OFFSET,
    DEFAULT_MEMORY_PROFILE_LIMIT,
    DEFAULT_MEMORY_RELATIONS_LIMIT,
    DEFAULT_RECALL_LIMIT,
    DEFAULT_REMEMBER_IMPORTANCE,
    DEFAULT_REMEMBER_KIND,
    DEFAULT_REMEMBER_SCOPE,
)
from ..models import (
    ExportMemory,
    ExportRelation,
    ImportMemory,
    ImportRelation,
    IngestResult,
    Memory,
    MemoryExport,
    MemoryKind,
    MemoryMetrics,
    MemoryProfile,
    MemoryRelations,
    SearchResult,
)


def remember(
    content: str,
    *,
    scope: str = DEFAULT_REMEMBER_SCOPE,
    kind: MemoryKind = DEFAULT_REMEMBER_KIND,
    metadata: Mapping[str, Any] | None = None,
    source_session_id: str | None = None,
    importance: float = DEFAULT_REMEMBER_IMPORTANCE,
) -> Call[Memory]:
    """Stores one memory; the same content again updates it (same id) instead of duplicating."""
    body = {
        "content": content,
        "scope": scope,
        "kind": kind,
        "metadata": dict(metadata or {}),
        "source_session_id": source_session_id,
        "importance": importance,
    }
    return Call("POST", "/v1/memory", body=body, has_body=True)


def ingest_memory(
    content: str,
    *,
    scope: str = DEFAULT_INGEST_MEMORY_SCOPE,
    kind: str = DEFAULT_INGEST_MEMORY_KIND,
    source_session_id: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> Call[IngestResult]:
    """Splits a longer text (a transcript, notes) into memories the server classifies."""
    body = {
        "content": content,
        "scope": scope,
        "kind": kind,
        "metadata": dict(metadata or {}),
        "source_session_id": source_session_id,
    }
    return Call("POST", "/v1/memory/ingest", body=body, has_body=True)


def recall(query: str, *, scope: str | None = None, limit: int = DEFAULT_RECALL_LIMIT) -> Call[SearchResult]:
    """The memories that best match ``query``, best first (``scope=None``: every scope)."""
    return Call("GET", "/v1/memory/search", query={"q": query, "scope": scope, "limit": limit})


def memory_profile(
    *, scope: str | None = None, limit: int = DEFAULT_MEMORY_PROFILE_LIMIT
) -> Call[MemoryProfile]:
    """Stable facts, preferences and instructions (static) apart from goals, notes, summaries (dynamic)."""
    return Call("GET", "/v1/memory/profile", query={"scope": scope, "limit": limit})


def list_memories(
    *,
    scope: str | None = None,
    include_superseded: bool = DEFAULT_LIST_MEMORIES_INCLUDE_SUPERSEDED,
    limit: int = DEFAULT_LIST_MEMORIES_LIMIT,
    offset: int = DEFAULT_LIST_MEMORIES_OFFSET,
) -> Call[List[Memory]]:
    """Memories by ``updated_at``, newest first."""
    query = {"scope": scope, "include_superseded": include_superseded, "limit": limit, "offset": offset}
    return Call("GET", "/v1/memory", query=query)


def get_memory(memory_id: str) -> Call[Memory]:
    return Call("GET", f"/v1/memory/{segment(memory_id)}")


def memory_relations(memory_id: str, *, limit: int = DEFAULT_MEMORY_RELATIONS_LIMIT) -> Call[MemoryRelations]:
    """The memory's outgoing relations, most confident first."""
    return Call("GET", f"/v1/memory/{segment(memory_id)}/relations", query={"limit": limit})


def forget_memory(memory_id: str) -> Call[None]:
    """Deletes the memory and every relation touching it."""
    return Call("DELETE", f"/v1/memory/{segment(memory_id)}")


def export_memories(*, scope: str | None = None, cursor: str | None = None) -> Call[MemoryExport]:
    """One page of the export; the clients' ``export_memories`` follows ``next_cursor`` to the last."""
    return Call("GET", "/v1/memory/export", query={"scope": scope, "cursor": cursor})


def joined_export(pages: Sequence[MemoryExport]) -> MemoryExport:
    """The export's pages as one payload, ready for ``import_memories``."""
    joined: MemoryExport = {**pages[-1], "memories": [], "relations": []}
    for page in pages:
        joined["memories"].extend(page["memories"])
        joined["relations"].extend(page["relations"])
    return joined


def import_memories(
    memories: Sequence[ImportMemory | ExportMemory],
    *,
    relations: Sequence[ImportRelation | ExportRelation] | None = None,
) -> Call[IngestResult]:
    """Imports memories (1-500) and relations between them, e.g. another account's export."""
    body = {"memories": list(memories), "relations": list(relations or [])}
    return Call("POST", "/v1/memory/import", body=body, has_body=True)


def memory_metrics(*, scope: str | None = None) -> Call[MemoryMetrics]:
    return Call("GET", "/v1/memory/metrics", query={"scope": scope})
