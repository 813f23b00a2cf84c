"""Streamed exec and output budgets against the live server: a streamed command's output events
for both streams and its exit, refusals before the command starts raised as API errors (sync and
async), and exec, view and process output cut to a byte budget; against a scripted server, an
`error` event after the command started raised as the API error it carries."""

from __future__ import annotations

import json
from typing import Callable, List

import pytest

from cairn import AsyncCairnClient, CairnApiError, CairnClient, CapabilityDeniedError, QuotaExceededError
from cairn.models import ExecEvent
from helpers import Account, Answer, ScriptedServer

SCRIPT = "echo a; echo b >&2; exit 3"


def _joined(events: List[ExecEvent], stream: str) -> str:
    return "".join(str(event.get(stream, "")) for event in events if event["type"] == "output")


def test_streamed_exec_yields_both_streams_then_the_exit(client: CairnClient) -> None:
    with client.sandbox() as sandbox:
        events = list(sandbox.exec_stream(SCRIPT, description="two streams"))
    assert (_joined(events, "stdout_chunk"), _joined(events, "stderr_chunk")) == ("a\n", "b\n")
    outputs = [event for event in events if event["type"] == "output"]
    # stderr_chunk is present on stderr's events only.
    assert [("stderr_chunk" in event) for event in outputs] == [False, True]
    last = events[-1]
    assert last["type"] == "exit"
    assert (last["exit_code"], last["timed_out"], last["truncated"]) == (3, False, False)
    assert "stdout" not in last and last["duration_ms"] >= 0


def test_leaving_a_streamed_exec_early_kills_the_command(client: CairnClient) -> None:
    with client.sandbox() as sandbox:
        command = "echo started; sleep 2; echo finished > /workspace/finished.txt"
        stream = sandbox.exec_stream(command, timeout=600)
        first = next(stream)
        assert first == {"type": "output", "stdout_chunk": "started\n"}
        stream.close()
        # Had the command gone on it would have written the file by now.
        assert sandbox.exec("sleep 3; cat finished.txt 2>/dev/null || echo absent")["stdout"] == "absent\n"


def test_refused_streamed_exec_raises_the_api_error(client: CairnClient) -> None:
    with pytest.raises(CairnApiError) as missing:
        list(client.exec_stream("sbx_missing", "echo hi"))
    assert (missing.value.status_code, missing.value.code) == (404, "not_found")

    with client.sandbox() as sandbox:
        client.set_allowed_commands(["echo"])
        try:
            with pytest.raises(CapabilityDeniedError) as refused:
                list(sandbox.exec_stream("rm -rf /workspace"))
            assert (refused.value.status_code, refused.value.code) == (403, "command_not_allowed")
        finally:
            client.clear_allowed_commands()
        # Past the JSON call's 100 s limit is fine when streamed; past 3600 s is not.
        with pytest.raises(CairnApiError) as too_long:
            list(sandbox.exec_stream("echo hi", timeout=3601))
        assert (too_long.value.status_code, too_long.value.code) == (422, "validation_error")


@pytest.mark.anyio
async def test_async_streamed_exec_and_its_refusal(base_url: str, account: Account) -> None:
    async with AsyncCairnClient(base_url, account.api_key) as client, client.sandbox() as sandbox:
        events = [event async for event in sandbox.exec_stream(SCRIPT, timeout=200)]
        assert (_joined(events, "stdout_chunk"), _joined(events, "stderr_chunk")) == ("a\n", "b\n")
        assert events[-1]["type"] == "exit" and events[-1]["exit_code"] == 3
        with pytest.raises(CairnApiError) as missing:
            [event async for event in client.exec_stream("sbx_missing", "echo hi")]
        assert missing.value.status_code == 404


def test_exec_view_and_process_output_keep_what_the_budget_says(client: CairnClient) -> None:
    with client.sandbox() as sandbox:
        command = "python3 -c \"print('x' * 5000 + 'END')\""
        tail = sandbox.exec(command, max_output_bytes=100, keep="tail")
        assert tail["stdout"].endswith("END\n") and tail["stdout_omitted_bytes"] > 0
        assert tail["truncated"] and tail["stderr_omitted_bytes"] == 0
        whole = sandbox.exec(command)
        assert whole["stdout_omitted_bytes"] == 0 and len(whole["stdout"]) == 5004

        sandbox.file_create("lines.txt", "".join(f"line {number}\n" for number in range(1, 201)))
        head = sandbox.view("lines.txt", max_output_bytes=50)
        assert head["truncated"] and head["omitted_bytes"] > 0
        assert head["content"].startswith("line 1\n") and head["omitted_lines"] is not None
        end = sandbox.view("lines.txt", max_output_bytes=50, keep="tail")
        assert end["content"].endswith("line 200\n") and not end["content"].startswith("line 1\n")
        assert sandbox.view("lines.txt")["truncated"] is False

        process_id = sandbox.start_process(command)["process_id"]
        sandbox.wait_process(process_id, timeout_seconds=30)
        page = sandbox.process_output(process_id, max_bytes=64, keep="tail")
        assert page["stdout"].endswith("END\n") and page["omitted_bytes"] > 0
        assert page["omitted_range"] is not None and page["next_offset"] == 5004
        first, last = page["omitted_range"]
        cut = sandbox.process_output(process_id, since_offset=first, max_bytes=last - first, keep="head")
        assert cut["stdout"] == "x" * (last - first)


def test_an_error_event_after_the_command_started_raises_its_api_error(
    scripted_server: Callable[[List[Answer]], ScriptedServer],
) -> None:
    error = {
        "code": "sandbox_process_limit_reached",
        "message": "The sandbox runs as many processes as its size allows",
        "retryable": True,
        "remediation": "Wait for them to end",
        "details": {"limit": 64, "size": "small"},
    }
    body = (
        'event: output\ndata: {"type":"output","stdout_chunk":"partial\\n"}\n\n: keep-alive\n\n'
        f"event: error\ndata: {json.dumps({'type': 'error', 'status': 429, 'error': error})}\n\n"
    )
    server = scripted_server([(200, {"content-type": "text/event-stream"}, body.encode(), 0.0)])
    seen: List[ExecEvent] = []
    with CairnClient(server.url, "cairn_test") as client, pytest.raises(QuotaExceededError) as failed:
        for event in client.exec_stream("sandbox-1", "make", timeout=1200):
            seen.append(event)
    assert seen == [{"type": "output", "stdout_chunk": "partial\n"}]
    assert (failed.value.status_code, failed.value.code) == (429, "sandbox_process_limit_reached")
    assert failed.value.details == {"limit": 64, "size": "small"}
    assert server.requests == [("POST", "/v1/sandboxes/sandbox-1/exec")]
