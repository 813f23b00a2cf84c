"""``export_memories`` follows ``next_cursor``: a server answers an export in pages (at most 10,000
memories and about 4 MiB each), and the client returns every page as one payload, so an account
larger than a page loses nothing. Against a scripted local server answering two pages."""

from __future__ import annotations

from typing import Any, Callable, Dict, List

import pytest

from cairn import AsyncCairnClient, CairnClient
from helpers import Answer, ScriptedServer, json_answer

Start = Callable[[List[Answer]], ScriptedServer]


def page(ids: List[str], relations: List[Dict[str, Any]], next_cursor: str | None) -> Dict[str, Any]:
    memories = [{"id": id, "content": f"Memory {id}"} for id in ids]
    return {"version": 1, "memories": memories, "relations": relations, "next_cursor": next_cursor}


EDGE = {"source_memory_id": "b", "target_memory_id": "c", "relation_type": "related", "confidence": 0.5}
PAGES = [json_answer(200, page(["a", "b"], [], "cursor-1")), json_answer(200, page(["c"], [EDGE], None))]
REQUESTS = [("GET", "/v1/memory/export?scope=work"), ("GET", "/v1/memory/export?scope=work&cursor=cursor-1")]


def test_export_memories_returns_every_page_as_one_payload(scripted_server: Start) -> None:
    server = scripted_server(PAGES)
    with CairnClient(server.url, "cairn_x") as client:
        exported = client.export_memories(scope="work")
    assert [memory["id"] for memory in exported["memories"]] == ["a", "b", "c"]
    assert exported["relations"] == [EDGE]
    assert exported["next_cursor"] is None
    assert server.requests == REQUESTS


@pytest.mark.anyio
async def test_the_async_client_follows_next_cursor_the_same_way(scripted_server: Start) -> None:
    server = scripted_server(PAGES)
    async with AsyncCairnClient(server.url, "cairn_x") as client:
        exported = await client.export_memories(scope="work")
    assert [memory["id"] for memory in exported["memories"]] == ["a", "b", "c"]
    assert exported["relations"] == [EDGE]
    assert server.requests == REQUESTS
