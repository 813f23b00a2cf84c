"""``SandboxSession``: one sandbox's calls without repeating its id, as a context manager.

``with client.sandbox() as sandbox:`` creates the sandbox on entry and destroys it on exit,
whatever the block did; ``async with async_client.sandbox() as sandbox:`` is the same for
``AsyncCairnClient``. A sandbox already gone at exit (expired, destroyed inside the block) is
not an error.
"""

from __future__ import annotations

from types import TracebackType
from typing import IO, TYPE_CHECKING, AsyncGenerator, AsyncIterator, Generator, Iterator

from ._binding import async_session_method, session_method
from ._core import Call
from ._generated_types import DEFAULT_EXEC_TIMEOUT
from ._operations import previews as _previews
from ._operations import processes as _processes
from ._operations import sandboxes as _sandboxes
from ._raw import AsyncUploadData, UploadData
from .errors import CairnApiError
from .models import ExecEvent, FileWritten, ProcessEvent, SandboxCreated

if TYPE_CHECKING:
    from .async_client import AsyncCairnClient
    from .client import CairnClient


class _SessionState:
    """What both session kinds hold: the create call, then the sandbox it made."""

    def __init__(self, create: Call[SandboxCreated]) -> None:
        self._create = create
        self._sandbox: SandboxCreated | None = None

    @property
    def sandbox(self) -> SandboxCreated:
        """The create call's answer (id, expiry, usage)."""
        if self._sandbox is None:
            raise RuntimeError("the sandbox exists only inside the with block")
        return self._sandbox

    @property
    def id(self) -> str:
        return self.sandbox["id"]


def _gone(error: CairnApiError) -> bool:
    return error.status_code == 404


class SandboxSession(_SessionState):
    def __init__(self, client: CairnClient, create: Call[SandboxCreated]) -> None:
        super().__init__(create)
        self.client = client

    def __enter__(self) -> SandboxSession:
        self._sandbox = self.client._send(self._create)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.destroy()

    def destroy(self) -> None:
        """Destroys the sandbox now (the with block's exit then has nothing left to do)."""
        try:
            self.client._send(_sandboxes.destroy_sandbox(self.id))
        except CairnApiError as failure:
            if not _gone(failure):
                raise

    exec = session_method(_sandboxes.exec)

    def exec_stream(
        self, command: str, *, timeout: int = DEFAULT_EXEC_TIMEOUT, description: str | None = None
    ) -> Generator[ExecEvent, None, None]:
        """``CairnClient.exec_stream`` for this sandbox."""
        return self.client.exec_stream(self.id, command, timeout=timeout, description=description)

    http_request = session_method(_sandboxes.http_request)
    file_create = session_method(_sandboxes.file_create)
    view = session_method(_sandboxes.view)
    str_replace = session_method(_sandboxes.str_replace)
    ls = session_method(_sandboxes.ls)
    glob = session_method(_sandboxes.glob)
    grep = session_method(_sandboxes.grep)
    lsp_start = session_method(_sandboxes.lsp_start)
    lsp_open = session_method(_sandboxes.lsp_open)
    lsp_completion = session_method(_sandboxes.lsp_completion)
    lsp_stop = session_method(_sandboxes.lsp_stop)

    preview = session_method(_previews.preview)
    revoke_preview = session_method(_previews.revoke_preview)
    takeover_token = session_method(_previews.takeover_token)
    start_process = session_method(_processes.start_process)
    list_processes = session_method(_processes.list_processes)
    get_process = session_method(_processes.get_process)
    process_output = session_method(_processes.process_output)
    process_input = session_method(_processes.process_input)
    stop_process = session_method(_processes.stop_process)
    wait_process = session_method(_processes.wait_process)

    def stream_process(self, process_id: str, *, since_offset: int = 0) -> Iterator[ProcessEvent]:
        """``CairnClient.stream_process`` for this sandbox."""
        return self.client.stream_process(self.id, process_id, since_offset=since_offset)

    def upload_file(self, path: str, data: UploadData, *, timeout: float | None = None) -> FileWritten:
        """``CairnClient.upload_file`` for this sandbox."""
        return self.client.upload_file(self.id, path, data, timeout=timeout)

    def download_file(
        self, path: str, destination: IO[bytes] | None = None, *, timeout: float | None = None
    ) -> bytes | int:
        """``CairnClient.download_file`` for this sandbox."""
        return self.client.download_file(self.id, path, destination, timeout=timeout)


class AsyncSandboxSession(_SessionState):
    def __init__(self, client: AsyncCairnClient, create: Call[SandboxCreated]) -> None:
        super().__init__(create)
        self.client = client

    async def __aenter__(self) -> AsyncSandboxSession:
        self._sandbox = await self.client._send(self._create)
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.destroy()

    async def destroy(self) -> None:
        try:
            await self.client._send(_sandboxes.destroy_sandbox(self.id))
        except CairnApiError as failure:
            if not _gone(failure):
                raise

    exec = async_session_method(_sandboxes.exec)

    def exec_stream(
        self, command: str, *, timeout: int = DEFAULT_EXEC_TIMEOUT, description: str | None = None
    ) -> AsyncGenerator[ExecEvent, None]:
        """``AsyncCairnClient.exec_stream`` for this sandbox."""
        return self.client.exec_stream(self.id, command, timeout=timeout, description=description)

    http_request = async_session_method(_sandboxes.http_request)
    file_create = async_session_method(_sandboxes.file_create)
    view = async_session_method(_sandboxes.view)
    str_replace = async_session_method(_sandboxes.str_replace)
    ls = async_session_method(_sandboxes.ls)
    glob = async_session_method(_sandboxes.glob)
    grep = async_session_method(_sandboxes.grep)
    lsp_start = async_session_method(_sandboxes.lsp_start)
    lsp_open = async_session_method(_sandboxes.lsp_open)
    lsp_completion = async_session_method(_sandboxes.lsp_completion)
    lsp_stop = async_session_method(_sandboxes.lsp_stop)

    preview = async_session_method(_previews.preview)
    revoke_preview = async_session_method(_previews.revoke_preview)
    takeover_token = async_session_method(_previews.takeover_token)
    start_process = async_session_method(_processes.start_process)
    list_processes = async_session_method(_processes.list_processes)
    get_process = async_session_method(_processes.get_process)
    process_output = async_session_method(_processes.process_output)
    process_input = async_session_method(_processes.process_input)
    stop_process = async_session_method(_processes.stop_process)
    wait_process = async_session_method(_processes.wait_process)

    def stream_process(self, process_id: str, *, since_offset: int = 0) -> AsyncIterator[ProcessEvent]:
        """``AsyncCairnClient.stream_process`` for this sandbox."""
        return self.client.stream_process(self.id, process_id, since_offset=since_offset)

    async def upload_file(
        self, path: str, data: AsyncUploadData, *, timeout: float | None = None
    ) -> FileWritten:
        """``AsyncCairnClient.upload_file`` for this sandbox."""
        return await self.client.upload_file(self.id, path, data, timeout=timeout)

    async def download_file(
        self, path: str, destination: IO[bytes] | None = None, *, timeout: float | None = None
    ) -> bytes | int:
        """``AsyncCairnClient.download_file`` for this sandbox."""
        return await self.client.download_file(self.id, path, destination, timeout=timeout)


__all__ = ["AsyncSandboxSession", "SandboxSession"]
