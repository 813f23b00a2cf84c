"""Shared fixtures: the live servers the vitest suite started (CAIRN_TEST_BASE_URL, and
CAIRN_TEST_PLUGINS_BASE_URL with the example plugins loaded), a fresh account with an API key on
the first, and scripted local servers (helpers.py)."""

from __future__ import annotations

import os
from typing import Callable, Iterator, List

import pytest

from cairn import CairnClient
from helpers import Account, Answer, ScriptedServer, sign_up, start_scripted_server


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def base_url() -> str:
    url = os.environ.get("CAIRN_TEST_BASE_URL")
    if not url:
        pytest.fail(
            "CAIRN_TEST_BASE_URL is not set: these tests need a live server "
            "(test/sdks/python.test.ts starts one)"
        )
    return url


@pytest.fixture(scope="session")
def plugins_base_url() -> str:
    url = os.environ.get("CAIRN_TEST_PLUGINS_BASE_URL")
    if not url:
        pytest.fail(
            "CAIRN_TEST_PLUGINS_BASE_URL is not set: these tests need a live server with the example "
            "plugins (test/sdks/python.test.ts starts one)"
        )
    return url


@pytest.fixture
def account(base_url: str) -> Account:
    """A fresh account per test, so sandbox and rate-limit counts never leak between tests."""
    return sign_up(base_url)


@pytest.fixture
def client(base_url: str, account: Account) -> Iterator[CairnClient]:
    with CairnClient(base_url, account.api_key) as cairn:
        yield cairn


@pytest.fixture
def scripted_server() -> Iterator[Callable[[List[Answer]], ScriptedServer]]:
    started: list[ScriptedServer] = []

    def start(answers: List[Answer]) -> ScriptedServer:
        started.append(start_scripted_server(answers))
        return started[-1]

    yield start
    for server in started:
        server.stop()
