"""Timeouts: 30 s per request by default; exec (and the HTTP broker) wait the sandbox-side timeout
plus 15 s, so the sandbox's own answer arrives before the client gives up."""

from __future__ import annotations

from typing import Any, Callable, List

import httpx
import pytest

from cairn import CairnClient, CairnConnectionError
from helpers import Answer, ScriptedServer, json_answer

EXEC_RESULT = {
    "exit_code": 0,
    "stdout": "",
    "stderr": "",
    "timed_out": False,
    "truncated": False,
    "duration_ms": 1,
}


def recording_client(timeouts: list[Any]) -> httpx.Client:
    """An httpx client that notes the timeout each request was sent with."""
    return httpx.Client(
        event_hooks={"request": [lambda request: timeouts.append(request.extensions["timeout"])]}
    )


def test_exec_waits_its_timeout_plus_15_seconds(
    scripted_server: Callable[[List[Answer]], ScriptedServer],
) -> None:
    server = scripted_server([json_answer(200, EXEC_RESULT)])
    timeouts: list[Any] = []
    with CairnClient(server.url, "cairn_x", http_client=recording_client(timeouts)) as client:
        client.exec("session", "true")
        client.exec("session", "sleep 80", timeout=80)
        client.http_request("session", "https://example.com", timeout=5)
        client.account()
    assert [timeout["read"] for timeout in timeouts] == [45.0, 95.0, 20.0, 30.0]


def test_a_tool_called_by_name_waits_its_sandbox_timeout_plus_15_seconds(
    scripted_server: Callable[[List[Answer]], ScriptedServer],
) -> None:
    server = scripted_server([json_answer(200, EXEC_RESULT)])
    timeouts: list[Any] = []
    with CairnClient(server.url, "cairn_x", http_client=recording_client(timeouts)) as client:
        client.call_tool("exec", {"session_id": "session", "command": "sleep 80", "timeout": 80})
        client.call_tool("exec", {"session_id": "session", "command": "true", "timeout": 80}, timeout=3)
        client.call_tool("recall", {"query": "x"})
        client.call_tool("recall", {"query": "x", "timeout": True})
    assert [timeout["read"] for timeout in timeouts] == [95.0, 3.0, 30.0, 30.0]


def test_exec_outlasts_the_client_timeout(scripted_server: Callable[[List[Answer]], ScriptedServer]) -> None:
    # The server takes 1.5 s; the client's own timeout is 0.5 s. exec(timeout=1) waits 16 s and
    # gets its answer; an ordinary call gives up.
    server = scripted_server([json_answer(200, EXEC_RESULT, delay=1.5)])
    with CairnClient(server.url, "cairn_x", timeout=0.5) as client:
        assert client.exec("session", "sleep 1", timeout=1) == EXEC_RESULT
        with pytest.raises(CairnConnectionError) as caught:
            client.account()
    assert caught.value.reason == "no answer within 0.5 s"


def test_a_real_command_past_its_timeout(client: CairnClient) -> None:
    with client.sandbox() as sandbox:
        result = sandbox.exec("sleep 5; echo never", timeout=1)
    assert result["timed_out"] is True and "never" not in result["stdout"]
