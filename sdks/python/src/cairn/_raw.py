"""The raw file routes (``PUT``/``GET /v1/sandboxes/{id}/files/raw``): a file's bytes in and out,
streamed, shared by the sync and async clients. The JSON calls go through ``Call``; these build
their request here because their body or answer is bytes, not JSON."""

from __future__ import annotations

from typing import IO, Any, AsyncIterable, AsyncIterator, Iterable, Iterator

import httpx

from ._core import Call, ClientCore, segment
from ._version import __version__

#: The raw routes' default timeout in seconds, for the whole transfer (100 MiB on a slow link).
RAW_TIMEOUT = 600.0
CHUNK = 1024 * 1024

#: What ``upload_file`` takes: bytes, a binary file object, or an iterable of byte chunks.
UploadData = bytes | bytearray | memoryview | IO[bytes] | Iterable[bytes]
AsyncUploadData = bytes | bytearray | memoryview | IO[bytes] | Iterable[bytes] | AsyncIterable[bytes]


def call(method: str, session_id: str, timeout: float | None) -> Call[Any]:
    return Call(method, f"/v1/sandboxes/{segment(session_id)}/files/raw", timeout=timeout or RAW_TIMEOUT)


def _file_chunks(file: IO[bytes]) -> Iterator[bytes]:
    while chunk := file.read(CHUNK):
        yield chunk


def sync_content(data: UploadData) -> bytes | Iterator[bytes]:
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    if hasattr(data, "read"):
        return _file_chunks(data)  # type: ignore[arg-type]
    return iter(data)  # type: ignore[arg-type]


async def _async_chunks(data: Any) -> AsyncIterator[bytes]:
    if hasattr(data, "__aiter__"):
        async for chunk in data:
            yield chunk
    elif hasattr(data, "read"):
        for chunk in _file_chunks(data):
            yield chunk
    else:
        for chunk in data:
            yield chunk


def async_content(data: AsyncUploadData) -> bytes | AsyncIterator[bytes]:
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    return _async_chunks(data)


def request(
    core: ClientCore,
    http: httpx.Client | httpx.AsyncClient,
    raw: Call[Any],
    path: str,
    content: Any = None,
) -> httpx.Request:
    headers = {
        "accept": "application/octet-stream, application/json",
        "user-agent": f"cairn-client-python/{__version__}",
    }
    if core.api_key:
        headers["authorization"] = f"Bearer {core.api_key}"
    if content is not None:
        headers["content-type"] = "application/octet-stream"
    return http.build_request(
        raw.method,
        f"{core.base_url}{raw.path}",
        params={"path": path},
        headers=headers,
        content=content,
        timeout=core.timeout_of(raw),
    )
