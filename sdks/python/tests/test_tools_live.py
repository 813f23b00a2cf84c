"""Tools by name against the live server: the listing, built-in tools called through
``call_tool`` (sync and async), the idempotency key, and refusals raised as the SDK's errors."""

from __future__ import annotations

import uuid

import pytest

from cairn import AsyncCairnClient, CairnApiError, CairnClient
from helpers import Account


def test_list_tools_describes_the_built_in_tools(client: CairnClient) -> None:
    tools = {tool["name"]: tool for tool in client.list_tools()["tools"]}
    recall = tools["recall"]
    assert recall["plugin"] is None
    assert recall["annotations"]["read_only"] is True
    assert recall["input_schema"]["type"] == "object"
    assert "q" in recall["input_schema"]["properties"]
    assert recall["http"] == {"method": "GET", "path": "/v1/memory/search"}


def test_call_tool_remembers_then_recalls(client: CairnClient) -> None:
    stored = client.call_tool("remember", {"content": "The tool route stores what remember stores."})
    found = client.call_tool("recall", {"q": "tool route stores", "limit": 3})
    assert [hit["id"] for hit in found["memories"]] == [stored["id"]]
    # A route that answers 204 answers {} through the tool route.
    assert client.call_tool("forget_memory", {"memory_id": stored["id"]}) == {}
    with pytest.raises(CairnApiError) as caught:
        client.get_memory(stored["id"])
    assert caught.value.code == "memory_not_found"


def test_call_tool_replays_an_answer_for_the_same_idempotency_key(client: CairnClient) -> None:
    key = str(uuid.uuid4())
    first = client.call_tool("ingest_memory", {"content": "Replays are cached per key."}, idempotency_key=key)
    again = client.call_tool("ingest_memory", {"content": "Replays are cached per key."}, idempotency_key=key)
    assert again == first
    with pytest.raises(CairnApiError) as caught:
        client.call_tool("ingest_memory", {"content": "Another body under that key."}, idempotency_key=key)
    assert (caught.value.status_code, caught.value.code) == (422, "idempotency_key_reuse")


def test_call_tool_raises_the_sdk_errors(client: CairnClient) -> None:
    with pytest.raises(CairnApiError) as unknown:
        client.call_tool("no_such_tool", {})
    assert (unknown.value.status_code, unknown.value.code) == (404, "not_found")
    with pytest.raises(CairnApiError) as invalid:
        client.call_tool("recall", {"q": ""})
    assert (invalid.value.status_code, invalid.value.code) == (422, "validation_error")
    with CairnClient(client.base_url, "") as anonymous, pytest.raises(CairnApiError) as refused:
        anonymous.call_tool("recall", {"q": "anything"})
    assert (refused.value.status_code, refused.value.code) == (401, "missing_credentials")


@pytest.mark.anyio
async def test_async_client_lists_and_calls_tools(base_url: str, account: Account) -> None:
    async with AsyncCairnClient(base_url, account.api_key) as client:
        names = [tool["name"] for tool in (await client.list_tools())["tools"]]
        assert "remember" in names and "recall" in names
        stored = await client.call_tool("remember", {"content": "Async tool calls store memories."})
        found = await client.call_tool("recall", {"q": "async tool calls"})
        assert found["memories"][0]["id"] == stored["id"]
