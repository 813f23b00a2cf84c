"""A sandbox's activity feed live (``GET /v1/sandboxes/{id}/watch``, docs/api.md#activity) as
Server-Sent Events. Yields each new entry; after a dropped connection or the server's 5-minute
close it reconnects from the last entry's ``seq``, so each entry comes once; ends with the sandbox."""

from __future__ import annotations

from typing import Any, Dict, Iterator

import httpx

from ._core import Call, ClientCore, segment
from ._process_stream import MAX_FAILURES, READ_TIMEOUT, EventParser
from ._version import __version__


def events(
    core: ClientCore, http: httpx.Client, session_id: str, since: int | None
) -> Iterator[Dict[str, Any]]:
    stream: Call[Any] = Call("GET", f"/v1/sandboxes/{segment(session_id)}/watch")
    failures = 0
    while True:
        headers = {"accept": "text/event-stream", "user-agent": f"cairn-client-python/{__version__}"}
        if core.api_key:
            headers["authorization"] = f"Bearer {core.api_key}"
        request = http.build_request(
            "GET",
            f"{core.base_url}{stream.path}",
            params={} if since is None else {"since": str(since)},
            headers=headers,
            timeout=httpx.Timeout(core.timeout, read=max(core.timeout, READ_TIMEOUT)),
        )
        try:
            response = http.send(request, stream=True)
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
                if data.get("type") == "end":
                    return
                failures = 0
                since = int(data["seq"])
                yield data
        except httpx.HTTPError as error:
            failures += 1
            if failures > MAX_FAILURES:
                raise core.connection_error(stream, error) from error
        finally:
            response.close()
