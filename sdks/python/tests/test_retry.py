"""Opt-in retry against a scripted local server that answers 503 with Retry-After, then 200. The
waits the client asks for are recorded (and still slept), so the tests check what it waited for
without timing anything."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from typing import Callable, Iterator, List

import pytest

import cairn.async_client
import cairn.client
from cairn import (
    AsyncCairnClient,
    CairnApiError,
    CairnClient,
    CairnConnectionError,
    RetryPolicy,
    ServiceUnavailableError,
)
from helpers import Answer, ScriptedServer, json_answer

UNAVAILABLE = {
    "error": {"code": "service_unavailable", "message": "try later", "retryable": True, "remediation": None}
}
ACCOUNT = {
    "id": "00000000-0000-4000-8000-000000000000",
    "email": "a@example.com",
    "created_at": "2026-11-23T00:00:00Z",
}
Start = Callable[[List[Answer]], ScriptedServer]


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float]]:
    asked: list[float] = []
    real_sleep = cairn.client.time.sleep
    real_async_sleep = cairn.async_client.anyio.sleep

    def sleep(seconds: float) -> None:
        asked.append(seconds)
        real_sleep(seconds)

    async def async_sleep(seconds: float) -> None:
        asked.append(seconds)
        await real_async_sleep(seconds)

    monkeypatch.setattr(cairn.client.time, "sleep", sleep)
    monkeypatch.setattr(cairn.async_client.anyio, "sleep", async_sleep)
    yield asked


def test_get_is_retried_after_retry_after_seconds(scripted_server: Start, waits: list[float]) -> None:
    server = scripted_server([json_answer(503, UNAVAILABLE, {"retry-after": "1"}), json_answer(200, ACCOUNT)])
    with CairnClient(server.url, "cairn_x", retry=True) as client:
        assert client.account() == ACCOUNT
    assert server.requests == [("GET", "/v1/account"), ("GET", "/v1/account")]
    assert waits == [1.0]


def test_retry_after_as_an_http_date(scripted_server: Start, waits: list[float]) -> None:
    soon = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=2), usegmt=True)
    server = scripted_server([json_answer(429, {}, {"retry-after": soon}), json_answer(200, ACCOUNT)])
    with CairnClient(server.url, "cairn_x", retry=True) as client:
        assert client.account() == ACCOUNT
    assert len(server.requests) == 2
    # An HTTP date has whole seconds: the wait is what is left of those two, never a backoff guess.
    assert len(waits) == 1 and 0.0 <= waits[0] <= 2.0


def test_post_is_never_retried(scripted_server: Start, waits: list[float]) -> None:
    server = scripted_server([json_answer(503, UNAVAILABLE, {"retry-after": "1"}), json_answer(200, ACCOUNT)])
    with CairnClient(server.url, "cairn_x", retry=True) as client, pytest.raises(ServiceUnavailableError):
        client.remember("a POST is not idempotent")
    assert server.requests == [("POST", "/v1/memory")]
    assert waits == []


def test_retry_is_off_unless_asked_for(scripted_server: Start, waits: list[float]) -> None:
    server = scripted_server([json_answer(503, UNAVAILABLE, {"retry-after": "1"}), json_answer(200, ACCOUNT)])
    with CairnClient(server.url, "cairn_x") as client, pytest.raises(ServiceUnavailableError):
        client.account()
    assert len(server.requests) == 1 and waits == []


def test_gives_up_after_max_retries_with_backoff(scripted_server: Start, waits: list[float]) -> None:
    server = scripted_server([json_answer(502, {})])
    policy = RetryPolicy(max_retries=3, base_delay=0.01, max_delay=0.05)
    with CairnClient(server.url, "cairn_x", retry=policy) as client, pytest.raises(ServiceUnavailableError):
        client.list_sandboxes()
    assert len(server.requests) == 4
    # Full jitter: each wait is drawn from [0, min(max_delay, base_delay * 2**attempt)].
    ceilings = [0.01, 0.02, 0.04]
    assert len(waits) == 3
    assert all(0 <= wait <= ceiling for wait, ceiling in zip(waits, ceilings, strict=True))


def test_a_retry_after_beyond_max_delay_is_raised_at_once(scripted_server: Start, waits: list[float]) -> None:
    server = scripted_server([json_answer(429, {}, {"retry-after": "3600"}), json_answer(200, ACCOUNT)])
    with CairnClient(server.url, "cairn_x", retry=True) as client, pytest.raises(CairnApiError) as caught:
        client.account()
    assert (caught.value.status_code, caught.value.retry_after) == (429, 3600.0)
    assert len(server.requests) == 1 and waits == []


def test_a_client_error_is_not_retried(scripted_server: Start, waits: list[float]) -> None:
    server = scripted_server([json_answer(404, {}), json_answer(200, ACCOUNT)])
    with CairnClient(server.url, "cairn_x", retry=True) as client, pytest.raises(CairnApiError) as caught:
        client.account()
    assert caught.value.status_code == 404
    assert len(server.requests) == 1 and waits == []


@pytest.mark.anyio
async def test_the_async_client_retries_the_same_way(scripted_server: Start, waits: list[float]) -> None:
    unavailable = json_answer(503, UNAVAILABLE, {"retry-after": "1"})
    server = scripted_server([unavailable, json_answer(200, ACCOUNT), unavailable])
    async with AsyncCairnClient(server.url, "cairn_x", retry=True) as client:
        assert await client.account() == ACCOUNT
        with pytest.raises(ServiceUnavailableError):
            await client.remember("not retried")
    assert server.requests == [("GET", "/v1/account"), ("GET", "/v1/account"), ("POST", "/v1/memory")]
    assert waits == [1.0]


def test_connection_failures_are_retried_for_idempotent_calls_only(
    scripted_server: Start, waits: list[float]
) -> None:
    server = scripted_server([json_answer(200, ACCOUNT)])
    server.stop()  # nothing listens there any more
    policy = RetryPolicy(max_retries=2, base_delay=0.01)
    with CairnClient(server.url, "cairn_x", retry=policy) as client:
        with pytest.raises(CairnConnectionError):
            client.account()
        assert len(waits) == 2
        with pytest.raises(CairnConnectionError):
            client.remember("not idempotent")
        assert len(waits) == 2
