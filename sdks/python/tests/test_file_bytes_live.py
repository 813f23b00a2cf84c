"""Bytes in and out of a sandbox against the live server: 50 MiB of random bytes through
``upload_file``/``download_file`` (bytes, a file object, chunks), base64 through ``file_create`` and
``view``, and the refusals a caller can act on."""

from __future__ import annotations

import base64
import hashlib
import io
import os

import pytest

from cairn import AsyncCairnClient, CairnApiError, CairnClient, CapabilityDeniedError
from helpers import Account


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_upload_and_download_50_mib_exactly(client: CairnClient) -> None:
    data = os.urandom(50 * 1024 * 1024)
    with client.sandbox() as sandbox:
        written = sandbox.upload_file("big.bin", io.BytesIO(data))
        assert written == {"path": "/workspace/big.bin", "size": len(data), "created": True}
        assert _sha256(client.download_file(sandbox.id, "big.bin")) == _sha256(data)  # type: ignore[arg-type]
        sink = io.BytesIO()
        assert sandbox.download_file("big.bin", sink) == len(data)
        assert _sha256(sink.getvalue()) == _sha256(data)


def test_chunks_base64_and_refusals(client: CairnClient) -> None:
    with client.sandbox() as sandbox:
        chunks = [os.urandom(1000), os.urandom(5)]
        assert sandbox.upload_file("/tmp/chunks.bin", iter(chunks))["size"] == 1005
        assert sandbox.download_file("/tmp/chunks.bin") == b"".join(chunks)

        small = os.urandom(2000)
        assert sandbox.file_create("small.bin", small)["size"] == 2000
        viewed = sandbox.view("small.bin", encoding="base64")
        assert viewed["encoding"] == "base64"
        assert base64.b64decode(viewed["content"]) == small
        with pytest.raises(CairnApiError) as refused:
            sandbox.view("small.bin")
        assert refused.value.code == "file_not_utf8"
        assert refused.value.status_code == 422
        with pytest.raises(CapabilityDeniedError):
            sandbox.download_file("/etc/passwd")
        with pytest.raises(CairnApiError) as missing:
            sandbox.download_file("missing.bin")
        assert missing.value.status_code == 404


@pytest.mark.anyio
async def test_async_upload_and_download(base_url: str, account: Account) -> None:
    data = os.urandom(3 * 1024 * 1024 + 7)

    async def chunks():  # an async iterable of chunks
        for start in range(0, len(data), 1024 * 1024):
            yield data[start : start + 1024 * 1024]

    async with AsyncCairnClient(base_url, account.api_key) as client, client.sandbox() as sandbox:
        assert (await sandbox.upload_file("async.bin", chunks()))["size"] == len(data)
        assert await sandbox.download_file("async.bin") == data
