"""Tools by name: every tool the server offers, built-in and from plugins, through the generic
routes. A plugin's tools are unknown to this package, so ``call_tool`` returns the JSON as it is."""

from __future__ import annotations

from typing import Any, Mapping

from .._core import Call, segment
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
    ``idempotency_key`` replays the first answer to a repeat; ``timeout`` overrides the client's."""
    return Call(
        "POST",
        f"/v1/tools/{segment(name)}",
        body=dict(input or {}),
        has_body=True,
        timeout=timeout,
        headers={"idempotency-key": idempotency_key} if idempotency_key else None,
    )
