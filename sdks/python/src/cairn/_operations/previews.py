"""Previews of sandbox ports and the takeover terminal's token and recording
(docs/sandboxes.md#previews, #takeover-terminal)."""

from __future__ import annotations

from typing import Any, Dict

from .._core import Call, segment
from .._generated_types import (
    CreatePreviewOutput,
    ListPreviewsOutput,
    RevokePreviewOutput,
    TakeoverRecordingOutput,
    TakeoverTokenOutput,
)


def preview(session_id: str, port: int, *, ttl_seconds: int | None = None) -> Call[CreatePreviewOutput]:
    """A URL reaching ``port`` inside the sandbox (HTTP and WebSocket) until ``expires_at``; the
    URL is its own authorization. ``ttl_seconds``: 30 to 86400, default 900."""
    body: Dict[str, Any] = {} if ttl_seconds is None else {"ttl_seconds": ttl_seconds}
    return Call("POST", f"/v1/sandboxes/{segment(session_id)}/preview/{int(port)}", body=body, has_body=True)


def revoke_preview(session_id: str, port: int, token_id: str) -> Call[RevokePreviewOutput]:
    """Ends a preview URL at once; revoking one twice is no error."""
    return Call(
        "POST",
        f"/v1/sandboxes/{segment(session_id)}/preview/{int(port)}/revoke",
        body={"token_id": token_id},
        has_body=True,
    )


def list_previews(session_id: str) -> Call[ListPreviewsOutput]:
    """The sandbox's unexpired previews (their ids, not their URLs)."""
    return Call("GET", f"/v1/sandboxes/{segment(session_id)}/previews")


def takeover_token(session_id: str, *, read_only: bool = False) -> Call[TakeoverTokenOutput]:
    """A single-use token (60 s) that opens the sandbox's terminal:
    ``GET /v1/sandboxes/{id}/takeover?token=…`` as a WebSocket. Needs an admin key."""
    return Call(
        "POST",
        f"/v1/sandboxes/{segment(session_id)}/takeover-token",
        body={"read_only": read_only},
        has_body=True,
    )


def takeover_recording(session_id: str) -> Call[TakeoverRecordingOutput]:
    """What the takeover terminal was sent and showed (the last 1 MiB)."""
    return Call("GET", f"/v1/sandboxes/{segment(session_id)}/takeover/recording")
