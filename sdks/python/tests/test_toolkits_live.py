"""cairn.toolkits' executor against the live server: tool calls as a model sends them (JSON text
with strict mode's nulls, or a dict), answers as JSON text, refusals as the REST error body with
the tool's argument names; through the sync and async clients, LangChain and Google ADK."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cairn import AsyncCairnClient, CairnClient
from cairn.toolkits import CairnToolkit
from helpers import Account


def answer(toolkit: CairnToolkit, name: str, arguments: Any) -> Any:
    result = toolkit.run(name, arguments)
    assert not result.is_error, result.content
    return json.loads(result.content)


def refusal(toolkit: CairnToolkit, name: str, arguments: Any) -> Any:
    result = toolkit.run(name, arguments)
    assert result.is_error, result.content
    return json.loads(result.content)["error"]


def test_the_toolkit_has_every_mcp_tool_the_server_lists(client: CairnClient) -> None:
    listed = [
        tool["mcp_name"] for tool in client.list_tools()["tools"] if tool["mcp_name"] and not tool["plugin"]
    ]
    assert CairnToolkit(client).tool_names == listed


def test_memory_tools_as_a_model_calls_them(client: CairnClient) -> None:
    toolkit = CairnToolkit(client, profile="memory")
    # What an OpenAI strict-mode call sends: every argument, null for those left out, metadata as text.
    stored = answer(
        toolkit,
        "remember",
        '{"content": "The toolkit test prefers green tea.", "scope": null, "kind": "preference",'
        ' "metadata": "{\\"source\\": \\"toolkit\\"}"}',
    )
    assert (stored["scope"], stored["kind"], stored["metadata"]) == (
        "default",
        "preference",
        {"source": "toolkit"},
    )
    found = answer(toolkit, "recall", '{"query": "green tea", "scope": null, "limit": null}')
    assert [memory["id"] for memory in found["memories"]] == [stored["id"]]
    # A refused argument is named as the tool names it (query, not REST's q).
    empty = refusal(toolkit, "recall", {"query": ""})
    assert empty["code"] == "validation_error" and [detail["loc"] for detail in empty["details"]] == [
        ["query"]
    ]
    assert refusal(toolkit, "recall", {"query": "x", "limit": 500})["details"][0]["loc"] == ["limit"]
    assert (
        refusal(toolkit, "exec", {"session_id": "x", "command": "ls"})["code"] == "not_found"
    )  # not in the profile
    assert answer(toolkit, "forget_memory", {"memory_id": stored["id"]}) == {
        "status": "forgotten",
        "id": stored["id"],
    }
    gone = refusal(toolkit, "forget_memory", {"memory_id": stored["id"]})
    assert gone["code"] == "memory_not_found" and gone["retryable"] is False and gone["remediation"]


def test_sandbox_tools_as_a_model_calls_them(client: CairnClient) -> None:
    toolkit = CairnToolkit(client)
    sandbox = answer(toolkit, "create_sandbox", {"label": "toolkit", "size": None, "volume_mounts": None})
    session = sandbox["id"]
    try:
        assert answer(
            toolkit, "file_create", {"session_id": session, "path": "hi.py", "content": "print(6 * 7)\n"}
        )
        ran = answer(
            toolkit, "exec", json.dumps({"session_id": session, "command": "python3 hi.py", "timeout": None})
        )
        assert (ran["exit_code"], ran["stdout"].strip()) == (0, "42")
        assert "print(6 * 7)" in answer(toolkit, "view", {"session_id": session, "path": "hi.py"})["content"]
        denied = refusal(toolkit, "view", {"session_id": session, "path": "/etc/passwd"})
        assert denied["code"] == "path_outside_sandbox"
    finally:
        assert answer(toolkit, "destroy_sandbox", {"session_id": session}) == {
            "status": "destroyed",
            "id": session,
        }
    assert refusal(toolkit, "destroy_sandbox", {"session_id": session})["code"] == "not_found"


def test_a_bad_key_is_an_error_body(base_url: str) -> None:
    with CairnClient(base_url, "cairn_" + "0" * 38) as client:
        error = refusal(CairnToolkit(client), "recall", {"query": "x"})
    assert error["code"] == "invalid_api_key"


@pytest.mark.anyio
async def test_async_client(base_url: str, account: Account) -> None:
    async with AsyncCairnClient(base_url, account.api_key) as client:
        toolkit = CairnToolkit(client, names=["remember", "recall"])
        stored = json.loads(await toolkit.aexecute("remember", {"content": "Async toolkits answer too."}))
        found = json.loads(await toolkit.aexecute("recall", {"query": "async toolkits"}))
        assert [memory["id"] for memory in found["memories"]] == [stored["id"]]
        with pytest.raises(TypeError, match="aexecute"):
            toolkit.execute("recall", {"query": "x"})


@pytest.mark.anyio
async def test_langchain_and_adk_tools_run_the_calls(client: CairnClient) -> None:
    toolkit = CairnToolkit(client, profile="memory")
    langchain = {tool.name: tool for tool in toolkit.langchain_tools()}
    stored = json.loads(langchain["remember"].invoke({"content": "LangChain tools reach Cairn."}))
    found = json.loads(await langchain["recall"].ainvoke({"query": "LangChain tools"}))
    assert [memory["id"] for memory in found["memories"]] == [stored["id"]]
    adk = {tool.name: tool for tool in toolkit.adk_tools()}
    result = await adk["recall"].run_async(args={"query": "LangChain tools"}, tool_context=None)  # type: ignore[arg-type]
    assert [memory["id"] for memory in result["memories"]] == [stored["id"]]
    refused = await adk["recall"].run_async(args={"query": ""}, tool_context=None)  # type: ignore[arg-type]
    assert refused["error"]["code"] == "validation_error"
