"""The base-URL rule, with the same table every Cairn SDK's tests run (test/conformance/base-urls.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn import AsyncCairnClient, CairnClient, CairnConfigError, CairnError, normalize_base_url
from cairn.agent_tools import create_tool_specs

TABLE = json.loads((Path(__file__).resolve().parents[3] / "test/conformance/base-urls.json").read_text())


@pytest.mark.parametrize("case", TABLE["accepted"], ids=lambda case: case["url"])
def test_accepts_and_normalizes(case: dict[str, str]) -> None:
    assert normalize_base_url(case["url"]) == case["normalized"]
    with CairnClient(case["url"], "cairn_x") as client:
        assert client.base_url == case["normalized"]


@pytest.mark.parametrize("url", TABLE["refused"])
def test_refuses_at_construction(url: str) -> None:
    with pytest.raises(CairnConfigError) as refused:
        CairnClient(url, "cairn_x")
    assert isinstance(refused.value, CairnError) and isinstance(refused.value, ValueError)
    with pytest.raises(CairnConfigError):
        AsyncCairnClient(url, "cairn_x")
    with pytest.raises(CairnConfigError):
        create_tool_specs(enable_memory_tools=True, hosted_api_key="cairn_x", hosted_base_url=url)


def test_the_table_is_the_shared_one() -> None:
    # A table that shrank to nothing would pass every test above.
    assert len(TABLE["accepted"]) >= 5 and len(TABLE["refused"]) >= 10


def test_environment_supplies_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CAIRN_BASE_URL", "https://cairn.example.com/")
    monkeypatch.setenv("CAIRN_API_KEY", "cairn_from_environment")
    with CairnClient() as client:
        assert client.base_url == "https://cairn.example.com"
    monkeypatch.delenv("CAIRN_BASE_URL")
    with CairnClient() as client:
        assert client.base_url == "http://127.0.0.1:8090"
    monkeypatch.setenv("CAIRN_BASE_URL", "http://cairn.example.com")
    with pytest.raises(CairnConfigError):
        CairnClient()
