"""A streamed exec (``POST …/exec`` with ``Accept: text/event-stream``, docs/api.md#streamed-exec),
shared by the sync and async clients: the command's output as events while it runs, then its
``exit`` event. A refusal before the command starts raises the API error as ``exec`` would; a
failure after it (an ``error`` event) raises it too. Closing the generator (leaving the loop
early) closes the stream, which kills the command."""

from __future__ import annotations

import json
from typing import Any, AsyncGenerator, Dict, Generator, cast

import httpx

from ._core import Call, ClientCore, segment
from ._event_stream import async_events_of, events_of, request
from ._operations.sandboxes import _exec_body
from .errors import CairnApiError, CairnConnectionError, error_from_response
from .models import ExecEvent


def call(session_id: str) -> Call[Any]:
    return Call("POST", f"/v1/sandboxes/{segment(session_id)}/exec")


def body(command: str, timeout: int, description: str | None) -> Dict[str, Any]:
    """The exec's JSON body (its byte budget cuts the JSON answer only, so a stream has none)."""
    return _exec_body(command, timeout, description)


def _event(data: Dict[str, Any]) -> ExecEvent:
    """The event to yield, or the API error an ``error`` event carries, raised."""
    if data.get("type") == "error":
        raise _error_of(data)
    return cast(ExecEvent, data)


def _error_of(data: Dict[str, Any]) -> CairnApiError:
    status = data.get("status")
    envelope = json.dumps({"error": data.get("error")}).encode()
    return error_from_response(status if isinstance(status, int) else 500, {}, envelope)


def _ended_early(stream: Call[Any]) -> CairnConnectionError:
    reason = "the stream ended before the command did"
    return CairnConnectionError(f"{stream.method} {stream.path} failed: {reason}", reason=reason)


def events(
    core: ClientCore, http: httpx.Client, session_id: str, body: Dict[str, Any]
) -> Generator[ExecEvent, None, None]:
    stream = call(session_id)
    try:
        response = http.send(request(core, http, stream, body=body), stream=True)
    except httpx.HTTPError as error:
        raise core.connection_error(stream, error) from error
    try:
        if not response.is_success:
            response.read()
            core.result(stream, response)
        for data in events_of(response):
            event = _event(data)
            yield event
            if event["type"] == "exit":
                return
    except httpx.HTTPError as error:
        raise core.connection_error(stream, error) from error
    finally:
        response.close()
    raise _ended_early(stream)


async def async_events(
    core: ClientCore, http: httpx.AsyncClient, session_id: str, body: Dict[str, Any]
) -> AsyncGenerator[ExecEvent, None]:
    stream = call(session_id)
    try:
        response = await http.send(request(core, http, stream, body=body), stream=True)
    except httpx.HTTPError as error:
        raise core.connection_error(stream, error) from error
    try:
        if not response.is_success:
            await response.aread()
            core.result(stream, response)
        async for data in async_events_of(response):
            event = _event(data)
            yield event
            if event["type"] == "exit":
                return
    except httpx.HTTPError as error:
        raise core.connection_error(stream, error) from error
    finally:
        await response.aclose()
    raise _ended_early(stream)
