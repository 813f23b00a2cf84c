"""Opt-in retry, the same for the sync and the async client.

Only idempotent verbs are repeated (GET, HEAD, PUT, DELETE, OPTIONS), only after a connection
failure or a 429/500/502/503/504, with exponential backoff and full jitter. A ``Retry-After``
from the server replaces the backoff; when it asks for longer than ``max_delay`` the error is
raised instead, since waiting hours (a monthly cap) inside a call helps nobody.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .errors import CairnApiError, CairnConnectionError, CairnError

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry; ``retry=True`` on a client means these defaults."""

    #: Attempts after the first.
    max_retries: int = 2
    #: The first backoff ceiling in seconds; it doubles per attempt.
    base_delay: float = 0.5
    #: The longest wait between attempts in seconds.
    max_delay: float = 30.0


def retry_policy(retry: bool | RetryPolicy | None) -> RetryPolicy | None:
    if retry is None or retry is False:
        return None
    return RetryPolicy() if retry is True else retry


def seconds_before_retry(
    policy: RetryPolicy | None, method: str, attempt: int, error: CairnError
) -> float | None:
    """How long to wait before attempt ``attempt + 1``, or None when the error is final."""
    if policy is None or method.upper() not in IDEMPOTENT_METHODS or attempt >= policy.max_retries:
        return None
    backoff = random.uniform(0, min(policy.max_delay, policy.base_delay * 2**attempt))
    if isinstance(error, CairnConnectionError):
        return backoff
    if not isinstance(error, CairnApiError) or error.status_code not in RETRY_STATUSES:
        return None
    if error.retry_after is None:
        return backoff
    return error.retry_after if error.retry_after <= policy.max_delay else None
