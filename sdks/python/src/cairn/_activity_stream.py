"""A sandbox's activity feed live (``GET /v1/sandboxes/{id}/watch``, docs/api.md#activity) as
Server-Sent Events. Yields each new entry; after a dropped connection or the server's 5-minute
close it reconnects from the last entry's ``seq``, so each entry comes once; ends with the sandbox."""

from __future__ import annotations

from typing import Any, Dict, Iterator

import httpx

from ._core import Call, ClientCore, segment
from ._event_stream import resuming_events


def events(
    core: ClientCore, http: httpx.Client, session_id: str, since: int | None
) -> Iterator[Dict[str, Any]]:
    stream: Call[Any] = Call("GET", f"/v1/sandboxes/{segment(session_id)}/watch")
    resume_at = {} if since is None else {"since": str(since)}
    for data in resuming_events(core, http, stream, resume_at):
        if data.get("type") == "end":
            return
        resume_at["since"] = str(int(data["seq"]))
        yield data
