"""Server-Sent Events from the REST API, shared by the streams of both clients: the request, a
line-at-a-time parser, and a reader that connects again where the last event left it after a
dropped connection or the server's 5-minute close."""

from __future__ import annotations

import json
from typing import Any, AsyncIterator, Dict, Iterator, List, cast

import httpx

from ._core import SANDBOX_TIMEOUT_MARGIN, Call, ClientCore
from ._version import __version__

#: Connections in a row that may fail (or break off) before the stream gives up.
MAX_FAILURES = 3
#: The server sends a keep-alive comment after 15 s without an event: a read waits longer than that.
READ_TIMEOUT = 15.0 + SANDBOX_TIMEOUT_MARGIN


def request(
    core: ClientCore,
    http: httpx.Client | httpx.AsyncClient,
    stream: Call[Any],
    params: Dict[str, str] | None = None,
    body: Dict[str, Any] | None = None,
) -> httpx.Request:
    """The request for ``stream``: its query ``params``, or a JSON ``body``."""
    headers = {"accept": "text/event-stream", "user-agent": f"cairn-client-python/{__version__}"}
    if body is not None:
        headers["content-type"] = "application/json"
    if core.api_key:
        headers["authorization"] = f"Bearer {core.api_key}"
    return http.build_request(
        stream.method,
        f"{core.base_url}{stream.path}",
        params=params or {},
        headers=headers,
        content=None if body is None else json.dumps(body).encode(),
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


def events_of(response: httpx.Response) -> Iterator[Dict[str, Any]]:
    """Each event's data from a streamed answer, once the answer is known to be a success."""
    parser = EventParser()
    for line in response.iter_lines():
        data = parser.line(line)
        if data is not None:
            yield data


async def async_events_of(response: httpx.Response) -> AsyncIterator[Dict[str, Any]]:
    """:func:`events_of` for the async client."""
    parser = EventParser()
    async for line in response.aiter_lines():
        data = parser.line(line)
        if data is not None:
            yield data


def _failed(core: ClientCore, stream: Call[Any], failures: int, error: httpx.HTTPError) -> int:
    """One more failure in a row; past :data:`MAX_FAILURES`, the connection error raised."""
    if failures >= MAX_FAILURES:
        raise core.connection_error(stream, error) from error
    return failures + 1


def resuming_events(
    core: ClientCore, http: httpx.Client, stream: Call[Any], resume_at: Dict[str, str]
) -> Iterator[Dict[str, Any]]:
    """Each event's data, connecting again with the query ``resume_at`` holds at that moment (the
    caller keeps it at the last event it took); :data:`MAX_FAILURES` failures in a row without an
    event between them raise. The caller returns at the stream's last event."""
    failures = 0
    while True:
        try:
            response = http.send(request(core, http, stream, dict(resume_at)), stream=True)
        except httpx.HTTPError as error:
            failures = _failed(core, stream, failures, error)
            continue
        try:
            if not response.is_success:
                response.read()
                core.result(stream, response)
            for data in events_of(response):
                failures = 0
                yield data
        except httpx.HTTPError as error:
            failures = _failed(core, stream, failures, error)
        finally:
            response.close()


async def async_resuming_events(
    core: ClientCore, http: httpx.AsyncClient, stream: Call[Any], resume_at: Dict[str, str]
) -> AsyncIterator[Dict[str, Any]]:
    """:func:`resuming_events` for the async client."""
    failures = 0
    while True:
        try:
            response = await http.send(request(core, http, stream, dict(resume_at)), stream=True)
        except httpx.HTTPError as error:
            failures = _failed(core, stream, failures, error)
            continue
        try:
            if not response.is_success:
                await response.aread()
                core.result(stream, response)
            async for data in async_events_of(response):
                failures = 0
                yield data
        except httpx.HTTPError as error:
            failures = _failed(core, stream, failures, error)
        finally:
            await response.aclose()
