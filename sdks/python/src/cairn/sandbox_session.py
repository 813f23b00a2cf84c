"""``SandboxSession``: one sandbox's calls without repeating its id, as a context manager.

``with client.sandbox() as sandbox:`` creates the sandbox on entry and destroys it on exit,
whatever the block did; ``async with async_client.sandbox() as sandbox:`` is the same for
``AsyncCairnClient``. A sandbox already gone at exit (expired, destroyed inside the block) is
not an error.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING

from ._binding import async_session_method, session_method
from ._core import Call
from ._operations import sandboxes as _sandboxes
from .errors import CairnApiError
from .models import SandboxCreated

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


__all__ = ["AsyncSandboxSession", "SandboxSession"]
