"""Turns an operation (arguments → ``Call``) into a client method with the operation's signature.

``ParamSpec`` keeps each operation's parameters and result type, so editors and type checkers
see ``client.remember(content, *, scope=..., ...) -> Memory`` although it is written only once.
"""

from __future__ import annotations

import functools
import inspect
from typing import TYPE_CHECKING, Any, Callable, Concatenate, Coroutine, ParamSpec, TypeVar

from ._core import Call

if TYPE_CHECKING:
    from .async_client import AsyncCairnClient
    from .client import CairnClient
    from .sandbox_session import AsyncSandboxSession, SandboxSession

P = ParamSpec("P")
T = TypeVar("T")


def _described(method: Any, operation: Callable[..., Any], *, drop_first: bool = False) -> None:
    """What ``help()`` shows: the operation's parameters after ``self``, and its result, not its ``Call``."""
    signature = inspect.signature(operation)
    parameters = list(signature.parameters.values())[1 if drop_first else 0 :]
    result = signature.return_annotation
    if isinstance(result, str) and result.startswith("Call[") and result.endswith("]"):
        result = result[len("Call[") : -1]
    self_parameter = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    method.__signature__ = signature.replace(
        parameters=[self_parameter, *parameters], return_annotation=result
    )


def sync_method(operation: Callable[P, Call[T]]) -> Callable[Concatenate[CairnClient, P], T]:
    @functools.wraps(operation)
    def method(self: CairnClient, *args: P.args, **kwargs: P.kwargs) -> T:
        return self._send(operation(*args, **kwargs))

    _described(method, operation)
    return method


def async_method(
    operation: Callable[P, Call[T]],
) -> Callable[Concatenate[AsyncCairnClient, P], Coroutine[Any, Any, T]]:
    @functools.wraps(operation)
    async def method(self: AsyncCairnClient, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._send(operation(*args, **kwargs))

    _described(method, operation)
    return method


def session_method(
    operation: Callable[Concatenate[str, P], Call[T]],
) -> Callable[Concatenate[SandboxSession, P], T]:
    """A sandbox operation as a ``SandboxSession`` method: the session supplies the id."""

    @functools.wraps(operation)
    def method(self: SandboxSession, *args: P.args, **kwargs: P.kwargs) -> T:
        return self.client._send(operation(self.id, *args, **kwargs))

    _described(method, operation, drop_first=True)
    return method


def async_session_method(
    operation: Callable[Concatenate[str, P], Call[T]],
) -> Callable[Concatenate[AsyncSandboxSession, P], Coroutine[Any, Any, T]]:
    @functools.wraps(operation)
    async def method(self: AsyncSandboxSession, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self.client._send(operation(self.id, *args, **kwargs))

    _described(method, operation, drop_first=True)
    return method
