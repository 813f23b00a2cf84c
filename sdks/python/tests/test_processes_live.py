"""Background processes against the live server: stdin with eof, output read by offsets (nothing
lost or repeated), the event stream followed live and resumed from an offset, wait, stop, list,
and the refusals a caller can act on; the async client's stream too; and, against a scripted
server, a stream closed before its exit event resuming from the last offset."""

from __future__ import annotations

from typing import Callable, List

import pytest

from cairn import AsyncCairnClient, CairnApiError, CairnClient
from cairn.models import ProcessEvent
from helpers import Account, Answer, ScriptedServer

ECHO = "python3 -c \"import sys; print(input()); print('err', file=sys.stderr)\""
COUNT = 'python3 -u -c "import time\nfor i in range(3): print(i); time.sleep(0.3)"'


def _joined(events: List[ProcessEvent], stream: str) -> str:
    return "".join(event[stream] for event in events if event["type"] == "output")  # type: ignore[literal-required]


def test_stdin_offsets_stream_wait_and_stop(client: CairnClient) -> None:
    with client.sandbox() as sandbox:
        started = sandbox.start_process(ECHO, description="echo a line")
        process_id = started["process_id"]
        assert process_id.startswith("proc_")
        assert started["status"] == "running"
        assert started["description"] == "echo a line"

        assert sandbox.process_input(process_id, "hello\n", eof=True) == {
            "bytes_written": 6,
            "stdin_open": False,
        }
        ended = sandbox.wait_process(process_id, timeout_seconds=30)
        assert (ended["status"], ended["exit_code"], ended["output_bytes"]) == ("exited", 0, 10)

        # Pages of at most 4 bytes, each from the previous next_offset: every byte once.
        stdout, stderr, offset = "", "", 0
        while True:
            page = sandbox.process_output(process_id, since_offset=offset, max_bytes=4)
            assert page["offset"] == offset and not page["truncated"]
            if page["next_offset"] == offset:
                break
            stdout, stderr, offset = stdout + page["stdout"], stderr + page["stderr"], page["next_offset"]
        assert (stdout, stderr, offset) == ("hello\n", "err\n", 10)
        assert (page["status"], page["exit_code"]) == ("exited", 0)

        events = list(sandbox.stream_process(process_id))
        assert (_joined(events, "stdout_chunk"), _joined(events, "stderr_chunk")) == ("hello\n", "err\n")
        assert events[-1] == {"type": "exit", "status": "exited", "exit_code": 0, "next_offset": 10}
        # Resuming from an event's offset sends only what came after it.
        middle = events[0]["next_offset"]
        rest = list(sandbox.stream_process(process_id, since_offset=middle))
        assert _joined(events[1:], "stdout_chunk") == _joined(rest, "stdout_chunk")
        assert _joined(events[1:], "stderr_chunk") == _joined(rest, "stderr_chunk")
        assert rest[-1]["type"] == "exit"

        with pytest.raises(CairnApiError) as refused:
            sandbox.process_input(process_id, "more\n")
        assert (refused.value.status_code, refused.value.code) == (409, "process_not_running")

        sleeper = sandbox.start_process("sleep 300", max_runtime_seconds=600)
        assert sandbox.get_process(sleeper["process_id"])["status"] == "running"
        listed = [process["process_id"] for process in sandbox.list_processes()["processes"]]
        assert listed == [process_id, sleeper["process_id"]]
        stopped = sandbox.stop_process(sleeper["process_id"])
        assert stopped["status"] == "killed" and stopped["ended_at"] is not None
        assert client.get_process(sandbox.id, sleeper["process_id"])["status"] == "killed"

        with pytest.raises(CairnApiError) as missing:
            sandbox.get_process("proc_" + "0" * 32)
        assert missing.value.status_code == 404


def test_stream_follows_a_running_process(client: CairnClient) -> None:
    with client.sandbox() as sandbox:
        process_id = sandbox.start_process(COUNT)["process_id"]
        events = list(client.stream_process(sandbox.id, process_id))
        assert _joined(events, "stdout_chunk") == "0\n1\n2\n"
        assert len(events) >= 4  # the lines came as they were printed, then the exit
        assert events[-1]["type"] == "exit" and events[-1]["exit_code"] == 0
        waited = sandbox.wait_process(process_id, timeout_seconds=5)
        assert waited["status"] == "exited"


@pytest.mark.anyio
async def test_async_stream_input_and_stop(base_url: str, account: Account) -> None:
    async with AsyncCairnClient(base_url, account.api_key) as client, client.sandbox() as sandbox:
        process_id = (await sandbox.start_process(ECHO))["process_id"]
        await sandbox.process_input(process_id, "async\n", eof=True)
        events = [event async for event in sandbox.stream_process(process_id)]
        assert (_joined(events, "stdout_chunk"), _joined(events, "stderr_chunk")) == ("async\n", "err\n")
        assert events[-1]["type"] == "exit"
        page = await client.process_output(sandbox.id, process_id, since_offset=0, wait_seconds=1)
        assert page["stdout"] == "async\n"

        sleeper = (await sandbox.start_process("sleep 300"))["process_id"]
        still = await sandbox.wait_process(sleeper, timeout_seconds=1)
        assert still["status"] == "running"
        assert (await sandbox.stop_process(sleeper))["status"] == "killed"
        assert len((await sandbox.list_processes())["processes"]) == 2


def test_a_stream_closed_before_the_exit_resumes_from_the_last_offset(
    scripted_server: Callable[[List[Answer]], ScriptedServer],
) -> None:
    # The live server closes a stream after 5 minutes: here a scripted one closes it at once.
    first = (
        'id: 3\nevent: output\ndata: {"type": "output", "stdout_chunk": "ab\\n", "stderr_chunk": "", '
        '"next_offset": 3, "truncated": false}\n\n: keep-alive\n\n'
    )
    last = (
        'id: 3\nevent: exit\ndata: {"type": "exit", "status": "exited", "exit_code": 0, "next_offset": 3}\n\n'
    )
    headers = {"content-type": "text/event-stream"}
    server = scripted_server([(200, headers, first.encode(), 0.0), (200, headers, last.encode(), 0.0)])
    with CairnClient(server.url, "cairn_test") as client:
        events = list(client.stream_process("sandbox-1", "proc_1"))
    assert [event["type"] for event in events] == ["output", "exit"]
    assert server.requests == [
        ("GET", "/v1/sandboxes/sandbox-1/processes/proc_1/stream?since_offset=0"),
        ("GET", "/v1/sandboxes/sandbox-1/processes/proc_1/stream?since_offset=3"),
    ]
    assert server.authorizations == ["Bearer cairn_test", "Bearer cairn_test"]
