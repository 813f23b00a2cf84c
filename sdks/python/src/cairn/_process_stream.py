"""A background process's output as Server-Sent Events (``GET …/processes/{id}/stream``,
docs/api.md#processes), shared by the sync and async clients. Yields each event's data; after a
dropped connection or the server's 5-minute close it reconnects from the last event's
``next_offset``, so the caller sees every byte once, until the ``exit`` event."""

from __future__ import annotations

from typing import Any, AsyncIterator, Iterator, cast

import httpx

from ._core import Call, ClientCore, segment
from ._event_stream import async_resuming_events, resuming_events
from .models import ProcessEvent


def call(session_id: str, process_id: str) -> Call[Any]:
    return Call("GET", f"/v1/sandboxes/{segment(session_id)}/processes/{segment(process_id)}/stream")


def events(
    core: ClientCore, http: httpx.Client, session_id: str, process_id: str, since_offset: int
) -> Iterator[ProcessEvent]:
    resume_at = {"since_offset": str(since_offset)}
    for data in resuming_events(core, http, call(session_id, process_id), resume_at):
        event = cast(ProcessEvent, data)
        resume_at["since_offset"] = str(event["next_offset"])
        yield event
        if event["type"] == "exit":
            return


async def async_events(
    core: ClientCore, http: httpx.AsyncClient, session_id: str, process_id: str, since_offset: int
) -> AsyncIterator[ProcessEvent]:
    resume_at = {"since_offset": str(since_offset)}
    async for data in async_resuming_events(core, http, call(session_id, process_id), resume_at):
        event = cast(ProcessEvent, data)
        resume_at["since_offset"] = str(event["next_offset"])
        yield event
        if event["type"] == "exit":
            return
