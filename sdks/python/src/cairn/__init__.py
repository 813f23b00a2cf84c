"""cairn-client: the Python SDK for Cairn's REST API (memory and sandboxes for AI agents).

from cairn import CairnClient

with CairnClient("http://127.0.0.1:8090", api_key) as cairn:
    cairn.remember("The staging database is db-staging-2")
    with cairn.sandbox() as sandbox:
        print(sandbox.exec("python3 -c 'print(6 * 7)'")["stdout"])
"""

from ._version import __version__
from .async_client import AsyncCairnClient
from .base_url import DEFAULT_BASE_URL, normalize_base_url
from .client import CairnClient
from .errors import (
    ApiErrorType,
    CairnApiError,
    CairnConfigError,
    CairnConnectionError,
    CairnError,
    CapabilityDeniedError,
    EgressDeniedError,
    QuotaExceededError,
    SandboxNotReadyError,
    ServiceUnavailableError,
    api_error_type,
)
from .retry import RetryPolicy
from .sandbox_session import AsyncSandboxSession, SandboxSession

__all__ = [
    "DEFAULT_BASE_URL",
    "ApiErrorType",
    "AsyncCairnClient",
    "AsyncSandboxSession",
    "CairnApiError",
    "CairnClient",
    "CairnConfigError",
    "CairnConnectionError",
    "CairnError",
    "CapabilityDeniedError",
    "EgressDeniedError",
    "QuotaExceededError",
    "RetryPolicy",
    "SandboxNotReadyError",
    "SandboxSession",
    "ServiceUnavailableError",
    "__version__",
    "api_error_type",
    "normalize_base_url",
]
