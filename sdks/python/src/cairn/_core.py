"""What the sync and the async client share: the request a call becomes, and what its answer means.

Each operation is written once as a function returning a ``Call`` (in ``_operations/``); the
two clients only differ in how they wait (``httpx.Client`` or ``httpx.AsyncClient``, ``time.sleep``
or ``anyio.sleep``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Mapping, TypeVar, cast
from urllib.parse import quote

import httpx

from ._version import __version__
from .base_url import DEFAULT_BASE_URL, normalize_base_url
from .errors import CairnConnectionError, CairnError, error_from_response
from .retry import RetryPolicy, retry_policy

T = TypeVar("T")
QueryValue = str | int | float | bool | None

#: Extra HTTP wait beyond a sandbox-side timeout, so the server's own answer arrives first.
SANDBOX_TIMEOUT_MARGIN = 15.0


def segment(value: str) -> str:
    """One path segment, escaped so an id can never reach another route."""
    return quote(value, safe="")


@dataclass(frozen=True)
class Call(Generic[T]):
    """One REST call: what is sent, and how its JSON becomes the method's result."""

    method: str
    path: str
    query: Mapping[str, QueryValue] | None = None
    body: Any = None
    has_body: bool = False
    #: False for signup and login (no credential) and the key routes (a dashboard token).
    uses_api_key: bool = True
    credential: str | None = None
    #: Overrides the client's timeout (exec waits for its command).
    timeout: float | None = None
    #: Seconds added to the client's timeout when ``timeout`` is not set (stop waits for a kill).
    timeout_margin: float = 0.0
    #: Extra request headers (an ``Idempotency-Key``).
    headers: Mapping[str, str] | None = None
    convert: Callable[[Any], T] = field(default=cast("Callable[[Any], T]", lambda value: value))  # pyright: ignore[reportUnknownLambdaType]


def _query_text(value: QueryValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class ClientCore:
    """Settings and the request/response rules of one client."""

    def __init__(
        self,
        base_url: str | None,
        api_key: str | None,
        timeout: float,
        retry: bool | RetryPolicy | None,
    ) -> None:
        chosen = base_url if base_url is not None else os.environ.get("CAIRN_BASE_URL") or DEFAULT_BASE_URL
        self.base_url = normalize_base_url(chosen)
        self.api_key = api_key if api_key is not None else os.environ.get("CAIRN_API_KEY") or None
        self.timeout = timeout
        self.retry = retry_policy(retry)

    def timeout_of(self, call: Call[Any]) -> float:
        return call.timeout if call.timeout is not None else self.timeout + call.timeout_margin

    def request(self, http: httpx.Client | httpx.AsyncClient, call: Call[Any]) -> httpx.Request:
        headers = {
            **(call.headers or {}),
            "accept": "application/json",
            "user-agent": f"cairn-client-python/{__version__}",
        }
        credential = self.api_key if call.uses_api_key else call.credential
        if credential:
            headers["authorization"] = f"Bearer {credential}"
        content = None
        if call.has_body:
            headers["content-type"] = "application/json"
            content = json.dumps(call.body).encode()
        params = {name: _query_text(value) for name, value in (call.query or {}).items() if value is not None}
        return http.build_request(
            call.method,
            f"{self.base_url}{call.path}",
            params=params,
            headers=headers,
            content=content,
            timeout=self.timeout_of(call),
        )

    def connection_error(self, call: Call[Any], error: httpx.HTTPError) -> CairnConnectionError:
        if isinstance(error, httpx.TimeoutException):
            reason = f"no answer within {self.timeout_of(call):g} s"
        else:
            reason = str(error) or type(error).__name__
        return CairnConnectionError(f"{call.method} {call.path} failed: {reason}", reason=reason)

    @staticmethod
    def result(call: Call[T], response: httpx.Response) -> T:
        """The call's result from a complete answer, or the API error it carries."""
        if not response.is_success:
            raise error_from_response(response.status_code, response.headers, response.content)
        if response.status_code == 204 or not response.content:
            return call.convert(None)
        try:
            return call.convert(response.json())
        except ValueError:
            raise CairnError(
                f"{call.method} {call.path}: the server answered {response.status_code} "
                "with a body that is not JSON"
            ) from None
