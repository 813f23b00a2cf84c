"""``CairnClient``: the synchronous client, one method per REST route named as CONTRACT §7 names
them for Python. Results are the server's JSON (typed as ``cairn.models``); failures raise
``CairnError`` subclasses."""

from __future__ import annotations

import time
from itertools import count
from types import TracebackType
from typing import IO, Any, Dict, Generator, Iterator, Mapping, Sequence, TypeVar

import httpx

from . import _activity_stream, _exec_stream, _process_stream, _raw
from ._binding import sync_method as _method
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
from .sandbox_session import SandboxSession

T = TypeVar("T")


class CairnClient:
    """A client for one Cairn server and (optionally) one API key.

    ``base_url`` defaults to ``$CAIRN_BASE_URL``, else ``http://127.0.0.1:8090``; it must be
    https, or plain http on ``localhost``/``127.0.0.1``. ``api_key`` defaults to
    ``$CAIRN_API_KEY`` (pass ``""`` for none); signup, login and the key routes need none.
    ``timeout`` is per request in seconds (``exec`` waits its command's timeout + 15 s instead).
    ``retry`` is off by default; ``True`` or a ``RetryPolicy`` retries idempotent calls.
    """

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        retry: bool | RetryPolicy | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        self._core = ClientCore(base_url, api_key, timeout, retry)
        self._http = http_client or httpx.Client()
        self._owns_http = http_client is None

    @property
    def base_url(self) -> str:
        return self._core.base_url

    def _send(self, call: Call[T]) -> T:
        for attempt in count():
            try:
                return self._core.result(call, self._exchange(call))
            except CairnError as error:
                wait = seconds_before_retry(self._core.retry, call.method, attempt, error)
                if wait is None:
                    raise
            time.sleep(wait)
        raise AssertionError("unreachable")

    def _exchange(self, call: Call[Any]) -> httpx.Response:
        try:
            return self._http.send(self._core.request(self._http, call))
        except httpx.HTTPError as error:
            raise self._core.connection_error(call, error) from error

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> CairnClient:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

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
    ) -> SandboxSession:
        """``with client.sandbox() as sandbox:`` creates a sandbox and destroys it on the way out."""
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
        return SandboxSession(self, create)

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
    ) -> Generator[ExecEvent, None, None]:
        """Runs a shell command and yields its output as it comes (``{"type": "output",
        "stdout_chunk"}``, plus ``"stderr_chunk"`` for stderr), then one ``{"type": "exit",
        "exit_code", "timed_out", "truncated", "duration_ms", ...}``. ``timeout`` may be up to
        3600 s here. A refusal, or a failure after the command started, raises ``CairnApiError``.
        Leaving the loop early (or ``close()`` on the generator) closes the stream, which kills
        the command."""
        body = _exec_stream.body(command, timeout, description)
        return _exec_stream.events(self._core, self._http, session_id, body)

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

    def watch_sandbox(self, session_id: str, *, since: int | None = None) -> Iterator[Dict[str, Any]]:
        """New activity entries as they are recorded (after ``since``, a ``seq``, when given),
        until the sandbox ends; reconnects across the server's 5-minute close. Break out to stop."""
        return _activity_stream.events(self._core, self._http, session_id, since)

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
    ) -> Iterator[ProcessEvent]:
        """The process's output as events (``{"type": "output", "stdout_chunk", "stderr_chunk",
        "next_offset", "truncated"}``) from ``since_offset``, then one ``{"type": "exit", ...}``;
        reconnects from the last event's offset when the connection drops or the server closes
        the stream (every 5 minutes), so each byte comes once. Break out to stop reading."""
        return _process_stream.events(self._core, self._http, session_id, process_id, since_offset)

    def upload_file(
        self, session_id: str, path: str, data: _raw.UploadData, *, timeout: float | None = None
    ) -> FileWritten:
        """Writes bytes to a file through the raw route, streamed: ``bytes``, a binary file object
        (read in 1 MiB chunks) or an iterable of chunks; at most 100 MiB. ``timeout`` (default
        600 s) covers the whole transfer."""
        raw = _raw.call("PUT", session_id, timeout)
        request = _raw.request(self._core, self._http, raw, path, _raw.sync_content(data))
        return self._core.result(raw, self._exchange_request(raw, request))

    def download_file(
        self,
        session_id: str,
        path: str,
        destination: IO[bytes] | None = None,
        *,
        timeout: float | None = None,
    ) -> bytes | int:
        """A file's exact bytes through the raw route; with ``destination`` (a binary file object)
        they are streamed into it and the number written is returned, else returned as ``bytes``."""
        raw = _raw.call("GET", session_id, timeout)
        request = _raw.request(self._core, self._http, raw, path)
        try:
            response = self._http.send(request, stream=True)
        except httpx.HTTPError as error:
            raise self._core.connection_error(raw, error) from error
        try:
            if not response.is_success:
                response.read()
                self._core.result(raw, response)
            if destination is None:
                return response.read()
            written = 0
            for chunk in response.iter_bytes(_raw.CHUNK):
                destination.write(chunk)
                written += len(chunk)
            return written
        except httpx.HTTPError as error:
            raise self._core.connection_error(raw, error) from error
        finally:
            response.close()

    def _exchange_request(self, raw: Call[Any], request: httpx.Request) -> httpx.Response:
        try:
            return self._http.send(request)
        except httpx.HTTPError as error:
            raise self._core.connection_error(raw, error) from error

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

    def export_memories(self, *, scope: str | None = None) -> MemoryExport:
        """Every live memory (superseded ones included) and their relations, ready for
        ``import_memories``: the server answers in pages, followed here by ``next_cursor``."""
        pages = [self._send(_memory.export_memories(scope=scope))]
        while cursor := pages[-1].get("next_cursor"):
            pages.append(self._send(_memory.export_memories(scope=scope, cursor=cursor)))
        return _memory.joined_export(pages)

    import_memories = _method(_memory.import_memories)
    memory_metrics = _method(_memory.memory_metrics)

    # Tools by name: built-in ones and those plugins add.
    list_tools = _method(_tools.list_tools)
    call_tool = _method(_tools.call_tool)
