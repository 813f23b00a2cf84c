"""Snapshots of a sandbox's files and its activity feed (docs/sandboxes.md#snapshots, #activity)."""

from __future__ import annotations

from typing import List

from .._core import Call, segment
from .._generated_types import CreateSnapshotOutput, SandboxCreated, SandboxLogOutput


def create_snapshot(session_id: str, *, label: str | None = None) -> Call[CreateSnapshotOutput]:
    """An immutable, consistent copy of the sandbox's /workspace and /tmp."""
    return Call(
        "POST", f"/v1/sandboxes/{segment(session_id)}/snapshots", body={"label": label}, has_body=True
    )


def list_snapshots(session_id: str) -> Call[List[CreateSnapshotOutput]]:
    """The sandbox's snapshots, newest first."""
    return Call("GET", f"/v1/sandboxes/{segment(session_id)}/snapshots")


def get_snapshot(snapshot_id: str) -> Call[CreateSnapshotOutput]:
    return Call("GET", f"/v1/snapshots/{segment(snapshot_id)}")


def delete_snapshot(snapshot_id: str) -> Call[None]:
    """Needs an admin key: a member key is refused (``CairnError`` with code ``insufficient_role``, 403)."""
    return Call("DELETE", f"/v1/snapshots/{segment(snapshot_id)}")


def restore_snapshot(snapshot_id: str, *, label: str | None = None) -> Call[SandboxCreated]:
    """A new sandbox whose files are the snapshot's, answered as ``create_sandbox`` answers."""
    return Call("POST", f"/v1/snapshots/{segment(snapshot_id)}/restore", body={"label": label}, has_body=True)


def sandbox_log(session_id: str, *, limit: int = 50, offset: int = 0) -> Call[SandboxLogOutput]:
    """A page of the sandbox's activity, newest first: who, what, when, exit codes and sizes."""
    return Call("GET", f"/v1/sandboxes/{segment(session_id)}/log", query={"limit": limit, "offset": offset})
