"""A background process's output as Server-Sent Events (``GET …/processes/{id}/stream``,
docs/api.md#processes), shared by the sync and async clients. Yields each event's data; after a
dropped connection or the server's 5-minute close it reconnects from the last event's
``next_offset``, so the caller sees every byte once, until the ``exit`` event."""

from __future__ import annotations

import json
from typing import Any, AsyncIterator, Dict, Iterator, List, cast

import httpx

from ._core import SANDBOX_TIMEOUT_MARGIN, Call, ClientCore, segment
from ._version import __version__
from .models import ProcessEvent

#: Connections in a row that may fail (or break off) before the stream gives up.
MAX_FAILURES = 3
#: The server sends a keep-alive comment after 15 s without output: a read waits longer than that.
READ_TIMEOUT = 15.0 + SANDBOX_TIMEOUT_MARGIN


def call(session_id: str, process_id: str) -> Call[Any]:
    return Call("GET", f"/v1/sandboxes/{segment(session_id)}/processes/{segment(process_id)}/stream")


def request(
    core: ClientCore, http: httpx.Client | httpx.AsyncClient, stream: Call[Any], since_offset: int
) -> httpx.Request:
    headers = {"accept": "text/event-stream", "user-agent": f"cairn-client-python/{__version__}"}
    if core.api_key:
        headers["authorization"] = f"Bearer {core.api_key}"
    return http.build_request(
        "GET",
        f"{core.base_url}{stream.path}",
        params={"since_offset": str(since_offset)},
        headers=headers,
        timeout=httpx.Timeout(core.timeout, read=max(core.timeout, READ_TIMEOUT)),
    )


class EventParser:
    """Server-Sent Events a line at a time: an event's ``data`` lines, parsed at the blank line
    that ends it (comments such as ``: keep-alive``, ``id`` and ``event`` lines are skipped)."""

    def __init__(self) -> None:
        self._data: List[str] = []

    def line(self, line: str) -> Dict[str, Any] | None:
        if line == "":
            if not self._data:
                return None
            text = "\n".join(self._data)
            self._data = []
            return cast(Dict[str, Any], json.loads(text))
        if line.startswith("data:"):
            value = line[len("data:") :]
            self._data.append(value[1:] if value.startswith(" ") else value)
        return None


def events(
    core: ClientCore, http: httpx.Client, session_id: str, process_id: str, since_offset: int
) -> Iterator[ProcessEvent]:
    stream = call(session_id, process_id)
    since = since_offset
    failures = 0
    while True:
        try:
            response = http.send(request(core, http, stream, since), stream=True)
        except httpx.HTTPError as error:
            failures += 1
            if failures > MAX_FAILURES:
                raise core.connection_error(stream, error) from error
            continue
        try:
            if not response.is_success:
                response.read()
                core.result(stream, response)
            parser = EventParser()
            for line in response.iter_lines():
                data = parser.line(line)
                if data is None:
                    continue
                event = cast(ProcessEvent, data)
                failures = 0
                since = event["next_offset"]
                yield event
                if event["type"] == "exit":
                    return
        except httpx.HTTPError as error:
            failures += 1
            if failures > MAX_FAILURES:
                raise core.connection_error(stream, error) from error
        finally:
            response.close()
        # The server closed the stream before the end (its time limit): resume where it stopped.


async def async_events(
    core: ClientCore, http: httpx.AsyncClient, session_id: str, process_id: str, since_offset: int
) -> AsyncIterator[ProcessEvent]:
    stream = call(session_id, process_id)
    since = since_offset
    failures = 0
    while True:
        try:
            response = await http.send(request(core, http, stream, since), stream=True)
        except httpx.HTTPError as error:
            failures += 1
            if failures > MAX_FAILURES:
                raise core.connection_error(stream, error) from error
            continue
        try:
            if not response.is_success:
                await response.aread()
                core.result(stream, response)
            parser = EventParser()
            async for line in response.aiter_lines():
                data = parser.line(line)
                if data is None:
                    continue
                event = cast(ProcessEvent, data)
                failures = 0
                since = event["next_offset"]
                yield event
                if event["type"] == "exit":
                    return
        except httpx.HTTPError as error:
            failures += 1
            if failures > MAX_FAILURES:
                raise core.connection_error(stream, error) from error
        finally:
            await response.aclose()
