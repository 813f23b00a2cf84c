"""Error parsing: the live server's refusals become typed errors carrying the envelope, and an
answer without an envelope gets the contract's defaults (code "error", message "HTTP <status>",
retryable exactly for 5xx)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from typing import Callable, List

import pytest

from cairn import (
    CairnApiError,
    CairnClient,
    CairnConnectionError,
    CapabilityDeniedError,
    QuotaExceededError,
    ServiceUnavailableError,
)
from cairn.errors import parse_retry_after
from helpers import Account, Answer, ScriptedServer, json_answer


def test_not_found_carries_the_envelope(client: CairnClient) -> None:
    with pytest.raises(CairnApiError) as caught:
        client.get_memory("00000000-0000-4000-8000-000000000000")
    error = caught.value
    assert (error.status_code, error.code, error.retryable) == (404, "memory_not_found", False)
    assert error.api_error_type is None and type(error) is CairnApiError
    assert error.message == error.server_message and error.message
    assert error.request_id and re.fullmatch(r"[0-9a-f]{32}", error.request_id)
    assert "memory_not_found" in str(error) and "HTTP 404" in str(error)


def test_bad_key_is_unauthorized(base_url: str) -> None:
    with CairnClient(base_url, "cairn_" + "a" * 38) as stranger, pytest.raises(CairnApiError) as caught:
        stranger.account()
    assert (caught.value.status_code, caught.value.code, caught.value.retryable) == (
        401,
        "invalid_api_key",
        False,
    )
    with CairnClient(base_url, "") as nobody, pytest.raises(CairnApiError) as missing:
        nobody.usage()
    assert missing.value.code == "missing_credentials"


def test_validation_error_has_details(client: CairnClient) -> None:
    with pytest.raises(CairnApiError) as caught:
        client.recall("", limit=1000)
    error = caught.value
    assert (error.status_code, error.code, error.message, error.retryable) == (
        422,
        "validation_error",
        "Invalid request",
        False,
    )
    assert isinstance(error.details, list) and error.details


def test_quota_refusal_is_quota_exceeded(client: CairnClient) -> None:
    created = client.create_sandboxes(2)
    try:
        with pytest.raises(QuotaExceededError) as caught:
            client.create_sandbox()
    finally:
        for sandbox in created:
            client.destroy_sandbox(sandbox["id"])
    error = caught.value
    assert (error.status_code, error.code, error.api_error_type) == (
        429,
        "concurrent_sandbox_limit_reached",
        "quota_exceeded",
    )
    assert error.retryable is False and error.details == {"limit": 2, "active": 2}
    assert error.remediation


def test_allowlist_refusal_is_capability_denied(client: CairnClient, account: Account) -> None:
    client.set_allowed_commands(["echo"])
    try:
        with client.sandbox() as sandbox:
            assert sandbox.exec("echo allowed")["stdout"] == "allowed\n"
            with pytest.raises(CapabilityDeniedError) as caught:
                sandbox.exec("ls /")
    finally:
        client.clear_allowed_commands()
    assert caught.value.code == "command_not_allowed" and caught.value.api_error_type == "capability_denied"


ENVELOPELESS: List[tuple[Answer, str, bool, type[CairnApiError]]] = [
    (
        (502, {"content-type": "text/html"}, b"<html>Bad gateway</html>", 0),
        "HTTP 502",
        True,
        ServiceUnavailableError,
    ),
    ((404, {}, b"", 0), "HTTP 404", False, CairnApiError),
    ((429, {"retry-after": "7"}, b"{}", 0), "HTTP 429", False, CairnApiError),
]


@pytest.mark.parametrize(
    "answer,message,retryable,error_class", ENVELOPELESS, ids=["502 html", "404 empty", "429 {}"]
)
def test_defaults_without_an_envelope(
    scripted_server: Callable[[List[Answer]], ScriptedServer],
    answer: Answer,
    message: str,
    retryable: bool,
    error_class: type[CairnApiError],
) -> None:
    server = scripted_server([answer])
    with CairnClient(server.url, "cairn_x") as client, pytest.raises(CairnApiError) as caught:
        client.account()
    error = caught.value
    assert (error.code, error.message, error.retryable, error.server_message) == (
        "error",
        message,
        retryable,
        None,
    )
    assert type(error) is error_class
    assert error.retry_after == (7.0 if answer[0] == 429 else None)


def test_an_explicit_retryable_wins(scripted_server: Callable[[List[Answer]], ScriptedServer]) -> None:
    envelope = {
        "error": {"code": "storage_error", "message": "disk trouble", "retryable": False, "remediation": None}
    }
    server = scripted_server([json_answer(500, envelope)])
    with CairnClient(server.url, "cairn_x") as client, pytest.raises(ServiceUnavailableError) as caught:
        client.usage()
    assert (caught.value.code, caught.value.message, caught.value.retryable) == (
        "storage_error",
        "disk trouble",
        False,
    )


def test_no_server_is_a_connection_error(scripted_server: Callable[[List[Answer]], ScriptedServer]) -> None:
    server = scripted_server([json_answer(200, {})])
    url = server.url
    with CairnClient(url, "cairn_x") as client:
        client.account()  # reachable now
    port_closed = url.rsplit(":", 1)[0] + ":1"
    with CairnClient(port_closed, "cairn_x") as client, pytest.raises(CairnConnectionError) as caught:
        client.account()
    assert "GET /v1/account failed" in str(caught.value) and caught.value.reason


def test_retry_after_seconds_and_dates() -> None:
    now = datetime(2026, 11, 23, 12, 0, 0, tzinfo=timezone.utc)
    assert parse_retry_after("3", now) == 3.0
    assert parse_retry_after(format_datetime(now + timedelta(seconds=90), usegmt=True), now) == 90.0
    assert parse_retry_after(format_datetime(now - timedelta(seconds=90), usegmt=True), now) == 0.0
    assert parse_retry_after("soon", now) is None and parse_retry_after(None, now) is None
