"""cairn.agent_tools: the specs in both formats, the executor against the live server, and every
failure as a ``Memory error: ...`` string (bad key, server down, no envelope, bad arguments)."""

from __future__ import annotations

import json
from typing import Callable, List

import pytest

from cairn import CairnConfigError
from cairn.agent_tools import create_tool_executor, create_tool_specs, memory_tool_definitions
from helpers import Account, Answer, ScriptedServer

NAMES = ["remember", "ingest_memory", "recall", "memory_profile", "forget_memory"]


def test_no_memory_tools_unless_enabled_with_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CAIRN_API_KEY", raising=False)
    assert create_tool_specs() == []
    assert create_tool_specs(hosted_api_key="cairn_x") == []
    assert create_tool_executor()("recall", {"query": "x"}).startswith("Memory error: unknown tool 'recall'")
    with pytest.raises(CairnConfigError, match="hosted_api_key or CAIRN_API_KEY"):
        create_tool_specs(enable_memory_tools=True)
    with pytest.raises(CairnConfigError, match="hosted_api_key"):
        create_tool_executor(enable_memory_tools=True)
    with pytest.raises(CairnConfigError, match="format"):
        create_tool_specs(format="gemini")  # type: ignore[arg-type]


def test_specs_in_both_formats() -> None:
    openai = create_tool_specs(enable_memory_tools=True, hosted_api_key="cairn_x")
    anthropic = create_tool_specs(enable_memory_tools=True, hosted_api_key="cairn_x", format="anthropic")
    assert [tool["function"]["name"] for tool in openai] == NAMES
    assert [tool["name"] for tool in anthropic] == NAMES
    assert all(tool["type"] == "function" for tool in openai)
    for spec_openai, spec_anthropic in zip(openai, anthropic, strict=True):
        # OpenAI's are in strict mode: every argument listed as required, the optional ones nullable.
        parameters = spec_openai["function"]["parameters"]
        assert spec_openai["function"]["strict"] is True and parameters["additionalProperties"] is False
        assert parameters["required"] == list(spec_anthropic["input_schema"]["properties"])
        assert spec_openai["function"]["description"] == spec_anthropic["description"]
        assert set(spec_anthropic) == {"name", "description", "input_schema"}
    recall = anthropic[2]["input_schema"]
    assert recall["required"] == ["query"] and recall["properties"]["limit"]["maximum"] == 50
    assert memory_tool_definitions() == anthropic


def test_the_tools_against_the_live_server(base_url: str, account: Account) -> None:
    execute = create_tool_executor(
        enable_memory_tools=True, hosted_api_key=account.api_key, hosted_base_url=base_url
    )
    stored = json.loads(
        execute("remember", '{"content": "The user prefers dark mode.", "kind": "preference"}')
    )
    assert (stored["kind"], stored["scope"]) == ("preference", "default")
    ingested = json.loads(
        execute(
            "ingest_memory",
            {
                "content": "The team meets every Monday morning in the lab. "
                "The retrospective happens every Friday afternoon online."
            },
        )
    )
    assert len(ingested["memories"]) >= 2
    found = json.loads(execute("recall", {"query": "dark mode", "scope": None, "limit": None}))
    assert found["memories"][0]["id"] == stored["id"]
    profile = json.loads(execute("memory_profile", None))
    assert stored["id"] in [memory["id"] for memory in profile["static"]]
    forgotten = json.loads(execute("forget_memory", json.dumps({"memory_id": stored["id"]})))
    assert forgotten == {"status": "forgotten", "id": stored["id"]}
    assert execute("forget_memory", {"memory_id": stored["id"]}).startswith("Memory error: ")
    assert execute("recall", {"query": ""}) == (
        "Memory error: Invalid request (q: Too small: expected string to have >=1 characters)"
    )
    assert execute("recall", {"query": "a", "limit": 500}) == (
        "Memory error: Invalid request (limit: Too big: expected number to be <=50)"
    )
    assert execute("recall", "{not json").startswith("Memory error: the arguments are not valid JSON")
    assert execute("recall", "[1]") == "Memory error: the arguments must be a JSON object"
    assert execute("recall", {}) == "Memory error: missing argument 'query'"
    assert execute("exec", {"command": "ls"}).startswith("Memory error: unknown tool 'exec'")
    execute.close()


def test_a_bad_key_is_a_memory_error(base_url: str) -> None:
    execute = create_tool_executor(
        enable_memory_tools=True, hosted_api_key="cairn_" + "b" * 38, hosted_base_url=base_url
    )
    answer = execute("recall", {"query": "anything"})
    assert answer.startswith("Memory error: ") and "HTTP" not in answer
    assert len(answer) > len("Memory error: ")


def test_the_server_down_is_a_memory_error(scripted_server: Callable[[List[Answer]], ScriptedServer]) -> None:
    server = scripted_server([(200, {}, b"{}", 0)])
    url = server.url
    server.stop()  # nothing listens there any more
    execute = create_tool_executor(enable_memory_tools=True, hosted_api_key="cairn_x", hosted_base_url=url)
    answer = execute("remember", {"content": "lost"})
    assert answer.startswith("Memory error: memory connection failed: ")


def test_an_answer_without_a_message(scripted_server: Callable[[List[Answer]], ScriptedServer]) -> None:
    server = scripted_server([(500, {"content-type": "text/plain"}, b"upstream broke", 0)])
    execute = create_tool_executor(
        enable_memory_tools=True, hosted_api_key="cairn_x", hosted_base_url=server.url
    )
    assert execute("memory_profile", {}) == "Memory error: memory request failed with HTTP 500"


def test_the_environment_gives_the_key_and_base_url(
    scripted_server: Callable[[List[Answer]], ScriptedServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    server = scripted_server([(200, {"content-type": "application/json"}, b'{"memories": []}', 0)])
    monkeypatch.setenv("CAIRN_BASE_URL", server.url)
    monkeypatch.setenv("CAIRN_API_KEY", "cairn_from_environment")
    assert [spec["name"] for spec in create_tool_specs(enable_memory_tools=True, format="anthropic")] == NAMES
    execute = create_tool_executor(enable_memory_tools=True)
    assert json.loads(execute("recall", {"query": "anything"})) == {"memories": []}
    assert server.requests[0][0] == "GET" and server.requests[0][1].startswith("/v1/memory/search?")
    assert server.authorizations == ["Bearer cairn_from_environment"]
    monkeypatch.setenv("CAIRN_BASE_URL", "http://example.com")
    with pytest.raises(Exception, match="https"):
        create_tool_executor(enable_memory_tools=True)
