"""``AsyncCairnClient``: the same methods as ``CairnClient``, as coroutines over
``httpx.AsyncClient`` (asyncio or trio). Request building, error parsing and the retry rule are
shared with the sync client (``_core.py``, ``retry.py``)."""

from __future__ import annotations

from itertools import count
from types import TracebackType
from typing import IO, Any, AsyncGenerator, AsyncIterator, Mapping, Sequence, TypeVar

import anyio
import httpx

from . import _exec_stream, _process_stream, _raw
from ._binding import async_method as _method
from ._core import Call, ClientCore
from ._generated_types import DEFAULT_CREATE_SANDBOX_SIZE, DEFAULT_EXEC_TIMEOUT
from ._operations import account as _account
from ._operations import memory as _memory
from ._operations import previews as _previews
from ._operations import processes as _processes
from ._operations import resources as _resources
from ._operations import sandboxes as _sandboxes
from ._operations import snapshots as _snapshots
from ._operations import tools as _tools
from .errors import CairnError
from .models import ExecEvent, FileWritten, MemoryExport, ProcessEvent, SandboxSize
from .retry import RetryPolicy, seconds_before_retry
from .sandbox_session import AsyncSandboxSession

T = TypeVar("T")


class AsyncCairnClient:
    """The asynchronous client; settings as ``CairnClient``. Use ``async with`` or ``await close()``."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        retry: bool | RetryPolicy | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self._core = ClientCore(base_url, api_key, timeout, retry)
        self._http = http_client or httpx.AsyncClient()
        self._owns_http = http_client is None

    @property
    def base_url(self) -> str:
        return self._core.base_url

    async def _send(self, call: Call[T]) -> T:
        for attempt in count():
            try:
                return self._core.result(call, await self._exchange(call))
            except CairnError as error:
                wait = seconds_before_retry(self._core.retry, call.method, attempt, error)
                if wait is None:
                    raise
            await anyio.sleep(wait)
        raise AssertionError("unreachable")

    async def _exchange(self, call: Call[Any]) -> httpx.Response:
        try:
            return await self._http.send(self._core.request(self._http, call))
        except httpx.HTTPError as error:
            raise self._core.connection_error(call, error) from error

    async def close(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncCairnClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.close()

    def sandbox(
        self,
        *,
        label: str | None = None,
        size: SandboxSize = DEFAULT_CREATE_SANDBOX_SIZE,
        storage_gb: float | None = None,
        lifetime_minutes: int | None = None,
        secret_names: Sequence[str] | None = None,
        image_id: str | None = None,
        mcp_connection_names: Sequence[str] | None = None,
        volume_mounts: Mapping[str, str] | None = None,
    ) -> AsyncSandboxSession:
        """``async with client.sandbox() as sandbox:`` creates a sandbox and destroys it on the way out."""
        create = _sandboxes.create_sandbox(
            label=label,
            size=size,
            storage_gb=storage_gb,
            lifetime_minutes=lifetime_minutes,
            secret_names=secret_names,
            image_id=image_id,
            mcp_connection_names=mcp_connection_names,
            volume_mounts=volume_mounts,
        )
        return AsyncSandboxSession(self, create)

    # Accounts, keys (these take the dashboard token) and the allowlist.
    signup = _method(_account.signup)
    login = _method(_account.login)
    create_api_key = _method(_account.create_api_key)
    list_api_keys = _method(_account.list_api_keys)
    revoke_api_key = _method(_account.revoke_api_key)
    account = _method(_account.account)
    usage = _method(_account.usage)
    get_allowed_commands = _method(_account.get_allowed_commands)
    set_allowed_commands = _method(_account.set_allowed_commands)
    clear_allowed_commands = _method(_account.clear_allowed_commands)

    # Sandboxes and what runs in them.
    create_sandbox = _method(_sandboxes.create_sandbox)
    create_sandboxes = _method(_sandboxes.create_sandboxes)
    get_sandbox = _method(_sandboxes.get_sandbox)
    list_sandboxes = _method(_sandboxes.list_sandboxes)
    destroy_sandbox = _method(_sandboxes.destroy_sandbox)
    exec = _method(_sandboxes.exec)

    def exec_stream(
        self,
        session_id: str,
        command: str,
        *,
        timeout: int = DEFAULT_EXEC_TIMEOUT,
        description: str | None = None,
    ) -> AsyncGenerator[ExecEvent, None]:
        """As ``CairnClient.exec_stream``: ``async for event in client.exec_stream(...)``. Leaving
        the loop early closes the stream once the generator is collected; ``await aclose()`` on it
        (or ``contextlib.aclosing``) closes it, and kills the command, at once."""
        body = _exec_stream.body(command, timeout, description)
        return _exec_stream.async_events(self._core, self._http, session_id, body)

    http_request = _method(_sandboxes.http_request)
    file_create = _method(_sandboxes.file_create)
    view = _method(_sandboxes.view)
    str_replace = _method(_sandboxes.str_replace)
    ls = _method(_sandboxes.ls)
    glob = _method(_sandboxes.glob)
    grep = _method(_sandboxes.grep)
    lsp_start = _method(_sandboxes.lsp_start)
    lsp_open = _method(_sandboxes.lsp_open)
    lsp_completion = _method(_sandboxes.lsp_completion)
    lsp_stop = _method(_sandboxes.lsp_stop)

    # Previews and the takeover terminal (docs/sandboxes.md#previews, #takeover-terminal).
    preview = _method(_previews.preview)
    revoke_preview = _method(_previews.revoke_preview)
    list_previews = _method(_previews.list_previews)
    takeover_token = _method(_previews.takeover_token)
    takeover_recording = _method(_previews.takeover_recording)

    # Snapshots and the activity feed (docs/sandboxes.md#snapshots, #activity).
    create_snapshot = _method(_snapshots.create_snapshot)
    list_snapshots = _method(_snapshots.list_snapshots)
    get_snapshot = _method(_snapshots.get_snapshot)
    delete_snapshot = _method(_snapshots.delete_snapshot)
    restore_snapshot = _method(_snapshots.restore_snapshot)
    sandbox_log = _method(_snapshots.sandbox_log)

    # Background processes (docs/api.md#processes).
    start_process = _method(_processes.start_process)
    list_processes = _method(_processes.list_processes)
    get_process = _method(_processes.get_process)
    process_output = _method(_processes.process_output)
    process_input = _method(_processes.process_input)
    stop_process = _method(_processes.stop_process)
    wait_process = _method(_processes.wait_process)

    def stream_process(
        self, session_id: str, process_id: str, *, since_offset: int = 0
    ) -> AsyncIterator[ProcessEvent]:
        """As ``CairnClient.stream_process``: ``async for event in client.stream_process(...)``."""
        return _process_stream.async_events(self._core, self._http, session_id, process_id, since_offset)

    async def upload_file(
        self, session_id: str, path: str, data: _raw.AsyncUploadData, *, timeout: float | None = None
    ) -> FileWritten:
        """As ``CairnClient.upload_file``; ``data`` may also be an async iterable of chunks."""
        raw = _raw.call("PUT", session_id, timeout)
        request = _raw.request(self._core, self._http, raw, path, _raw.async_content(data))
        try:
            response = await self._http.send(request)
        except httpx.HTTPError as error:
            raise self._core.connection_error(raw, error) from error
        return self._core.result(raw, response)

    async def download_file(
        self,
        session_id: str,
        path: str,
        destination: IO[bytes] | None = None,
        *,
        timeout: float | None = None,
    ) -> bytes | int:
        """As ``CairnClient.download_file``."""
        raw = _raw.call("GET", session_id, timeout)
        request = _raw.request(self._core, self._http, raw, path)
        try:
            response = await self._http.send(request, stream=True)
        except httpx.HTTPError as error:
            raise self._core.connection_error(raw, error) from error
        try:
            if not response.is_success:
                await response.aread()
                self._core.result(raw, response)
            if destination is None:
                return await response.aread()
            written = 0
            async for chunk in response.aiter_bytes(_raw.CHUNK):
                destination.write(chunk)
                written += len(chunk)
            return written
        except httpx.HTTPError as error:
            raise self._core.connection_error(raw, error) from error
        finally:
            await response.aclose()

    # Images, volumes, secrets, MCP connections.
    create_image = _method(_resources.create_image)
    get_image = _method(_resources.get_image)
    list_images = _method(_resources.list_images)
    delete_image = _method(_resources.delete_image)
    create_volume = _method(_resources.create_volume)
    get_volume = _method(_resources.get_volume)
    list_volumes = _method(_resources.list_volumes)
    delete_volume = _method(_resources.delete_volume)
    create_secret = _method(_resources.create_secret)
    list_secrets = _method(_resources.list_secrets)
    delete_secret = _method(_resources.delete_secret)
    create_mcp_connection = _method(_resources.create_mcp_connection)
    list_mcp_connections = _method(_resources.list_mcp_connections)
    delete_mcp_connection = _method(_resources.delete_mcp_connection)

    # Memory.
    remember = _method(_memory.remember)
    ingest_memory = _method(_memory.ingest_memory)
    recall = _method(_memory.recall)
    memory_profile = _method(_memory.memory_profile)
    list_memories = _method(_memory.list_memories)
    get_memory = _method(_memory.get_memory)
    memory_relations = _method(_memory.memory_relations)
    forget_memory = _method(_memory.forget_memory)

    async def export_memories(self, *, scope: str | None = None) -> MemoryExport:
        """Every live memory (superseded ones included) and their relations, ready for
        ``import_memories``: the server answers in pages, followed here by ``next_cursor``."""
        pages = [await self._send(_memory.export_memories(scope=scope))]
        while cursor := pages[-1].get("next_cursor"):
            pages.append(await self._send(_memory.export_memories(scope=scope, cursor=cursor)))
        return _memory.joined_export(pages)

    import_memories = _method(_memory.import_memories)
    memory_metrics = _method(_memory.memory_metrics)

    # Tools by name: built-in ones and those plugins add.
    list_tools = _method(_tools.list_tools)
    call_tool = _method(_tools.call_tool)
