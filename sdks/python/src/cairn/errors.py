"""The SDK's errors.

Every failure is a ``CairnError``: ``CairnConnectionError`` when no answer came (network
failure, timeout), ``CairnApiError`` when the server answered with its error envelope, and
``CairnConfigError`` when a client is built with settings it cannot use (a refused base URL).
API errors of a few families have their own subclasses, so ``except QuotaExceededError`` reads
as what happened; ``api_error_type`` names the family for code that prefers a string.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any, Literal, Mapping, cast

ApiErrorType = Literal[
    "quota_exceeded", "capability_denied", "egress_denied", "sandbox_not_ready", "service_unavailable"
]


class CairnError(Exception):
    """Anything the SDK raises."""


class CairnConfigError(CairnError, ValueError):
    """A client was constructed with settings it refuses (a base URL, a missing key)."""


class CairnConnectionError(CairnError):
    """No answer from the server: the connection failed, broke off or timed out."""

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        #: Why, without the request it happened to (e.g. "[Errno 111] Connection refused").
        self.reason = reason


def api_error_type(code: str, status_code: int) -> ApiErrorType | None:
    """The family of an error code (CONTRACT §5): quotas and capacity, refusals, server trouble."""
    if code.endswith("_limit_reached") or code.endswith("_capacity_reached"):
        return "quota_exceeded"
    if code in ("command_not_allowed", "path_outside_sandbox"):
        return "capability_denied"
    if code == "egress_denied":
        return "egress_denied"
    if code == "sandbox_not_ready":
        return "sandbox_not_ready"
    if code == "service_unavailable" or status_code >= 500:
        return "service_unavailable"
    return None


class CairnApiError(CairnError):
    """The server refused or failed a request and said why in its error envelope."""

    def __init__(
        self,
        status_code: int,
        code: str,
        message: str,
        *,
        retryable: bool,
        remediation: str | None = None,
        details: Any = None,
        retry_after: float | None = None,
        request_id: str | None = None,
        server_message: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.code = code
        self.message = message
        self.retryable = retryable
        self.remediation = remediation
        self.details = details
        #: Seconds to wait, from ``Retry-After``, when the server said.
        self.retry_after = retry_after
        #: The server's ``X-Request-ID``, for support and logs.
        self.request_id = request_id
        #: ``error.message`` exactly as the server sent it; None when the answer had none.
        self.server_message = server_message

    @property
    def api_error_type(self) -> ApiErrorType | None:
        return api_error_type(self.code, self.status_code)

    def __str__(self) -> str:
        return f"{self.message} [{self.code}] (HTTP {self.status_code})"

    def __repr__(self) -> str:
        fields = f"status_code={self.status_code}, code={self.code!r}, message={self.message!r}"
        return f"{type(self).__name__}({fields})"


class QuotaExceededError(CairnApiError):
    """A per-account quota or a deployment's capacity (``*_limit_reached``, ``*_capacity_reached``)."""


class CapabilityDeniedError(CairnApiError):
    """The account's policy refused it (``command_not_allowed``, ``path_outside_sandbox``)."""


class EgressDeniedError(CairnApiError):
    """The sandbox may not reach that host (``egress_denied``)."""


class SandboxNotReadyError(CairnApiError):
    """The sandbox is not ready yet (``sandbox_not_ready``); retrying later helps."""


class ServiceUnavailableError(CairnApiError):
    """The server is in trouble (``service_unavailable`` or any other 5xx)."""


_SUBCLASSES: dict[str, type[CairnApiError]] = {
    "quota_exceeded": QuotaExceededError,
    "capability_denied": CapabilityDeniedError,
    "egress_denied": EgressDeniedError,
    "sandbox_not_ready": SandboxNotReadyError,
    "service_unavailable": ServiceUnavailableError,
}


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value: delta-seconds or an HTTP date."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        moment = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    current = now or datetime.now(timezone.utc)
    return max(0.0, (moment - current).total_seconds())


def error_from_response(status_code: int, headers: Mapping[str, str], body: bytes) -> CairnApiError:
    """The error for a non-2xx answer.

    The body's ``error.code`` and ``error.message`` when present, else ``"error"`` and
    ``HTTP <status>``; ``retryable`` as the server says, else true exactly for 5xx.
    """
    envelope: dict[str, Any] = {}
    try:
        parsed = json.loads(body)
        if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):  # pyright: ignore[reportUnknownMemberType]
            envelope = cast("dict[str, Any]", parsed["error"])
    except ValueError:
        pass  # not JSON (a proxy's HTML page): the defaults below describe it
    code = envelope.get("code")
    code = code if isinstance(code, str) and code else "error"
    server_message = envelope.get("message")
    server_message = server_message if isinstance(server_message, str) and server_message else None
    retryable = envelope.get("retryable")
    remediation = envelope.get("remediation")
    family = api_error_type(code, status_code)
    error_class = _SUBCLASSES[family] if family else CairnApiError
    return error_class(
        status_code,
        code,
        server_message or f"HTTP {status_code}",
        retryable=retryable if isinstance(retryable, bool) else status_code >= 500,
        remediation=remediation if isinstance(remediation, str) else None,
        details=envelope.get("details"),
        retry_after=parse_retry_after(headers.get("retry-after")),
        request_id=headers.get("x-request-id"),
        server_message=server_message,
    )
