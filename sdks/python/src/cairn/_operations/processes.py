"""Background processes in a sandbox (docs/api.md#processes): start, read by offset, feed stdin,
wait, stop. The output's event stream is not a ``Call`` (its answer is Server-Sent Events): the
clients' ``stream_process`` reads it (``_process_stream.py``)."""

from __future__ import annotations

from typing import Any, Dict

from .._core import SANDBOX_TIMEOUT_MARGIN, Call, segment
from .._generated_types import (
    DEFAULT_PROCESS_INPUT_EOF,
    DEFAULT_PROCESS_OUTPUT_MAX_BYTES,
    DEFAULT_PROCESS_OUTPUT_SINCE_OFFSET,
    DEFAULT_PROCESS_OUTPUT_WAIT_SECONDS,
    DEFAULT_PROCESS_WAIT_TIMEOUT_SECONDS,
)
from ..models import BackgroundProcess, OutputKeep, ProcessInputResult, ProcessList, ProcessOutput

#: Extra wait on stop: SIGTERM, then SIGKILL 5 s later, and the answer once it has ended.
STOP_TIMEOUT_MARGIN = 10.0


def _processes(session_id: str, suffix: str = "") -> str:
    return f"/v1/sandboxes/{segment(session_id)}/processes{suffix}"


def _process(session_id: str, process_id: str, suffix: str = "") -> str:
    return _processes(session_id, f"/{segment(process_id)}{suffix}")


def start_process(
    session_id: str,
    command: str,
    *,
    description: str | None = None,
    max_runtime_seconds: int | None = None,
) -> Call[BackgroundProcess]:
    """Starts a shell command in the sandbox without waiting for it; answers at once with its
    ``process_id``. ``max_runtime_seconds=None``: it runs until the sandbox ends."""
    body: Dict[str, Any] = {"command": command, "max_runtime_seconds": max_runtime_seconds}
    if description is not None:
        body["description"] = description
    return Call("POST", _processes(session_id), body=body, has_body=True)


def list_processes(session_id: str) -> Call[ProcessList]:
    """The sandbox's background processes, running and recently ended, oldest first."""
    return Call("GET", _processes(session_id))


def get_process(session_id: str, process_id: str) -> Call[BackgroundProcess]:
    return Call("GET", _process(session_id, process_id))


def process_output(
    session_id: str,
    process_id: str,
    *,
    since_offset: int = DEFAULT_PROCESS_OUTPUT_SINCE_OFFSET,
    max_bytes: int = DEFAULT_PROCESS_OUTPUT_MAX_BYTES,
    keep: OutputKeep | None = None,
    wait_seconds: int = DEFAULT_PROCESS_OUTPUT_WAIT_SECONDS,
) -> Call[ProcessOutput]:
    """Output from ``since_offset`` (0, then each answer's ``next_offset``: nothing is lost or
    repeated); ``wait_seconds`` waits that long for new output or the end (the HTTP call waits
    it + 15 s). ``keep="tail"`` or ``"both"`` reads to the newest output and keeps its last
    ``max_bytes`` (or half at each end): ``omitted_range`` and ``omitted_bytes`` name what was
    cut; the default, ``"head"``, is the page from ``since_offset``."""
    query = {"since_offset": since_offset, "max_bytes": max_bytes, "keep": keep, "wait_seconds": wait_seconds}
    timeout = wait_seconds + SANDBOX_TIMEOUT_MARGIN if wait_seconds > 0 else None
    return Call("GET", _process(session_id, process_id, "/output"), query=query, timeout=timeout)


def process_input(
    session_id: str, process_id: str, data: str, *, eof: bool = DEFAULT_PROCESS_INPUT_EOF
) -> Call[ProcessInputResult]:
    """Writes ``data`` to the process's stdin (add ``\\n`` for a line); ``eof=True`` closes it after."""
    body = {"data": data, "eof": eof}
    return Call("POST", _process(session_id, process_id, "/input"), body=body, has_body=True)


def stop_process(session_id: str, process_id: str) -> Call[BackgroundProcess]:
    """SIGTERM to the process and what it started, SIGKILL 5 s later; answers its final state."""
    return Call(
        "POST",
        _process(session_id, process_id, "/stop"),
        body={},
        has_body=True,
        timeout_margin=STOP_TIMEOUT_MARGIN,
    )


def wait_process(
    session_id: str, process_id: str, *, timeout_seconds: int = DEFAULT_PROCESS_WAIT_TIMEOUT_SECONDS
) -> Call[BackgroundProcess]:
    """Waits up to ``timeout_seconds`` for the process to end; its state either way (``status``
    ``"running"``: not ended yet). The HTTP call waits ``timeout_seconds`` + 15 s."""
    return Call(
        "POST",
        _process(session_id, process_id, "/wait"),
        body={"timeout_seconds": timeout_seconds},
        has_body=True,
        timeout=timeout_seconds + SANDBOX_TIMEOUT_MARGIN,
    )
