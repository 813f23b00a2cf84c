"""Previews and takeover tokens against the live server: a dev server started in the background is
reached through its preview URL, and not after revoke; a takeover token is minted."""

from __future__ import annotations

import time

import httpx
import pytest

from cairn import CairnApiError, CairnClient


def test_preview_reaches_a_dev_server_until_revoked(client: CairnClient) -> None:
    with client.sandbox() as sandbox:
        sandbox.start_process("python3 -m http.server 8765 --bind 127.0.0.1")
        preview = sandbox.preview(8765, ttl_seconds=120)
        assert preview["port"] == 8765 and preview["token_id"].startswith("prv_")
        deadline = time.monotonic() + 20
        while True:
            answer = httpx.get(preview["url"])
            if answer.status_code == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert answer.status_code == 200 and "Directory listing" in answer.text
        listed = client.list_previews(sandbox.id)["previews"]
        assert [entry["token_id"] for entry in listed] == [preview["token_id"]]
        assert sandbox.revoke_preview(8765, preview["token_id"]) == {"revoked": True}
        assert sandbox.revoke_preview(8765, preview["token_id"]) == {"revoked": True}
        assert httpx.get(preview["url"]).status_code == 404

        token = sandbox.takeover_token(read_only=True)
        assert token["token"].startswith("tkt_") and token["read_only"] is True
        with pytest.raises(CairnApiError) as refused:
            client.preview(sandbox.id, 70000)
        assert refused.value.status_code == 422
