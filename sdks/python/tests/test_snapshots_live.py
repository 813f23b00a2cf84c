"""Snapshots, key roles and the activity feed against the live server: a snapshot restored into a new
sandbox keeps the files while the source changes; a member key cannot delete it (403
insufficient_role); the log records the exec with its exit code."""

from __future__ import annotations

import pytest

from cairn import CairnApiError, CairnClient
from helpers import Account


def test_snapshot_restore_roles_and_log(client: CairnClient, base_url: str, account: Account) -> None:
    member_key = client.create_api_key(account.access_token, "agent", role="member")
    assert member_key["role"] == "member"
    with client.sandbox() as sandbox:
        assert sandbox.exec("echo kept > a.txt; exit 2")["exit_code"] == 2
        snapshot = client.create_snapshot(sandbox.id, label="py")
        assert snapshot["status"] == "ready" and snapshot["session_id"] == sandbox.id
        assert [item["id"] for item in client.list_snapshots(sandbox.id)] == [snapshot["id"]]
        sandbox.exec("echo changed > a.txt")
        restored = client.restore_snapshot(snapshot["id"], label="copy")
        try:
            assert client.exec(restored["id"], "cat a.txt")["stdout"] == "kept\n"
        finally:
            client.destroy_sandbox(restored["id"])

        with CairnClient(base_url, member_key["key"]) as member:
            assert member.get_snapshot(snapshot["id"])["id"] == snapshot["id"]
            with pytest.raises(CairnApiError) as refused:
                member.delete_snapshot(snapshot["id"])
            assert refused.value.status_code == 403 and refused.value.code == "insufficient_role"
        client.delete_snapshot(snapshot["id"])

        log = client.sandbox_log(sandbox.id, limit=10)
        commands = [entry for entry in log["entries"] if entry["kind"] == "command"]
        assert [entry["subject"] for entry in commands] == [
            "echo changed > a.txt",
            "echo kept > a.txt; exit 2",
        ]
        assert commands[1]["exit_code"] == 2 and commands[1]["key_id"] is not None

        # The live feed replays from a seq, then follows.
        watch = client.watch_sandbox(sandbox.id, since=commands[0]["seq"])
        sandbox.exec("echo live")
        entry = next(watch)
        assert entry["kind"] == "command" and entry["subject"] == "echo live"
        watch.close()
