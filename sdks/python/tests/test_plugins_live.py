"""A plugin's tools through ``list_tools`` and ``call_tool``, against the live server that loads the
example plugins (examples/plugins: ``todo`` and ``session-journal``)."""

from __future__ import annotations

import pytest

from cairn import AsyncCairnClient, CairnApiError, CairnClient
from helpers import sign_up


def test_plugin_tools_are_listed_and_called_by_name(plugins_base_url: str) -> None:
    account = sign_up(plugins_base_url)
    with CairnClient(plugins_base_url, account.api_key) as client:
        tools = {tool["name"]: tool for tool in client.list_tools()["tools"]}
        assert tools["todo.add"]["plugin"] == "todo"
        assert tools["session-journal.recent"]["mcp_name"] == "session_journal__recent"
        assert tools["recall"]["plugin"] is None

        added = client.call_tool("todo.add", {"text": "Tag the Python release"})
        assert (added["text"], added["done"]) == ("Tag the Python release", False)
        assert [task["id"] for task in client.call_tool("todo.list")["tasks"]] == [added["id"]]
        assert client.call_tool("todo.done", {"id": added["id"]})["done"] is True
        with pytest.raises(CairnApiError) as missing:
            client.call_tool("todo.done", {"id": "t-none"})
        assert (missing.value.status_code, missing.value.code) == (404, "not_found")
        assert client.call_tool("session-journal.recent", {"limit": 5}) == {"sessions": []}


@pytest.mark.anyio
async def test_async_client_calls_a_plugin_tool(plugins_base_url: str) -> None:
    account = sign_up(plugins_base_url)
    async with AsyncCairnClient(plugins_base_url, account.api_key) as client:
        added = await client.call_tool("todo.add", {"text": "Async tasks too"})
        listed = await client.call_tool("todo.list", {"include_done": True})
        assert [task["id"] for task in listed["tasks"]] == [added["id"]]
