"""Tools by name: every tool the server offers, built-in and from plugins, through the generic
routes. A plugin's tools are unknown to this package, so ``call_tool`` returns the JSON as it is."""

from __future__ import annotations

from typing import Any, Mapping

from .._core import SANDBOX_TIMEOUT_MARGIN, Call, segment
from ..models import ToolList


def list_tools() -> Call[ToolList]:
    """Every tool the server offers, built-in and from plugins, with its input and output JSON Schemas."""
    return Call("GET", "/v1/tools")


def call_tool(
    name: str,
    input: Mapping[str, Any] | None = None,
    *,
    idempotency_key: str | None = None,
    timeout: float | None = None,
) -> Call[Any]:
    """Calls a tool by name (``recall``, ``<plugin>.<tool>``) with its wire input, through the same
    checks as its own route; returns its output (``{}`` for a route that answers nothing).
    ``idempotency_key`` replays the first answer to a repeat. An input with a sandbox-side
    ``timeout`` in seconds (exec, http_request) is waited for that + 15 s, as ``exec`` is;
    ``timeout`` overrides the wait."""
    sandbox_seconds = (input or {}).get("timeout")
    if (
        timeout is None
        and isinstance(sandbox_seconds, (int, float))
        and not isinstance(sandbox_seconds, bool)
        and sandbox_seconds > 0
    ):
        timeout = sandbox_seconds + SANDBOX_TIMEOUT_MARGIN
    return Call(
        "POST",
        f"/v1/tools/{segment(name)}",
        body=dict(input or {}),
        has_body=True,
        timeout=timeout,
        headers={"idempotency-key": idempotency_key} if idempotency_key else None,
    )
