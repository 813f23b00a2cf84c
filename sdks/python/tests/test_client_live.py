"""The clients against the live server: SandboxSession (sync and async), the key routes, memory
defaults sent explicitly, and a memory round trip through AsyncCairnClient."""

from __future__ import annotations

import json
from typing import Any, Callable, List
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from cairn import AsyncCairnClient, CairnApiError, CairnClient
from helpers import Account, Answer, ScriptedServer, json_answer


def test_sandbox_session_destroys_on_exit_even_after_a_failure(client: CairnClient) -> None:
    with client.sandbox(label="python sdk") as sandbox:
        sandbox.file_create("hello.py", "print('hi from python')\n")
        assert sandbox.exec("python3 hello.py")["stdout"] == "hi from python\n"
        assert sandbox.view("hello.py")["content"].startswith("print")
        assert sandbox.str_replace("hello.py", "hi", "hello")["replaced"] == 1
        assert [entry["path"] for entry in sandbox.glob("**/*.py")["matches"]] == ["/workspace/hello.py"]
        assert sandbox.grep("hello")["matches"][0]["line"] == 1
        assert "/workspace/hello.py" in [entry["path"] for entry in sandbox.ls()["entries"]]
        first = sandbox.id
    assert client.get_sandbox(first)["status"] == "destroyed"

    with pytest.raises(RuntimeError, match="the work failed"), client.sandbox() as sandbox:
        second = sandbox.id
        raise RuntimeError("the work failed")
    assert client.get_sandbox(second)["status"] == "destroyed"

    with client.sandbox() as sandbox:
        sandbox.destroy()  # gone before the exit: the exit does not fail
    assert client.list_sandboxes(active_only=True) == []


@pytest.mark.anyio
async def test_async_client_and_async_sandbox_session(base_url: str, account: Account) -> None:
    async with AsyncCairnClient(base_url, account.api_key) as client:
        async with client.sandbox() as sandbox:
            await sandbox.file_create("n.txt", "one\n")
            result = await sandbox.exec("cat n.txt")
            session_id = sandbox.id
        assert result["stdout"] == "one\n"
        assert (await client.get_sandbox(session_id))["status"] == "destroyed"

        memory = await client.remember("The async client stores memories too.", scope="async")
        found = await client.recall("async client memories", scope="async")
        assert [hit["id"] for hit in found["memories"]] == [memory["id"]]
        await client.forget_memory(memory["id"])
        with pytest.raises(CairnApiError) as caught:
            await client.get_memory(memory["id"])
        assert caught.value.code == "memory_not_found"


def test_api_keys_with_the_dashboard_token(base_url: str, account: Account) -> None:
    with CairnClient(base_url, "") as anonymous:
        token = anonymous.login(account.email, account.password)["access_token"]
        created = anonymous.create_api_key(token, "to revoke")
        assert created["id"] in [key["id"] for key in anonymous.list_api_keys(token)]
        anonymous.revoke_api_key(token, created["id"])
    with CairnClient(base_url, created["key"]) as revoked, pytest.raises(CairnApiError) as caught:
        revoked.account()
    assert caught.value.code == "invalid_api_key"
    with CairnClient(base_url, account.api_key) as client:
        assert client.account()["email"] == account.email
        assert client.usage()["concurrent_sandboxes_limit"] == 2


def test_memory_calls_send_their_defaults(base_url: str, account: Account) -> None:
    sent: list[httpx.Request] = []
    http = httpx.Client(event_hooks={"request": [sent.append]})
    with CairnClient(base_url, account.api_key, http_client=http) as client:
        stored = client.remember("Defaults travel on the wire.")
        client.ingest_memory("The wire carries defaults. The SDK spells them out every time.")
        client.list_memories()
        client.recall("defaults")
        client.memory_profile()
    http.close()
    bodies: list[dict[str, Any]] = [json.loads(request.content) for request in sent[:2]]
    assert {name: bodies[0][name] for name in ("scope", "kind", "metadata", "importance")} == {
        "scope": "default",
        "kind": "fact",
        "metadata": {},
        "importance": 0.5,
    }
    assert (bodies[1]["scope"], bodies[1]["metadata"]) == ("default", {})
    queries = [parse_qs(urlsplit(str(request.url)).query) for request in sent[2:]]
    assert queries[0] == {"include_superseded": ["false"], "limit": ["50"], "offset": ["0"]}
    assert queries[1] == {"q": ["defaults"], "limit": ["10"]}
    assert queries[2] == {"limit": ["20"]}
    assert (stored["scope"], stored["kind"], stored["importance"]) == ("default", "fact", 0.5)


def test_account_level_resources(client: CairnClient) -> None:
    connection = client.create_mcp_connection("python-sdk", "github")
    assert connection["host"] == "api.githubcopilot.com"
    assert [item["id"] for item in client.list_mcp_connections()] == [connection["id"]]
    client.delete_mcp_connection(connection["id"])
    assert (
        client.set_allowed_commands(["echo", {"command": "git", "args_allow": ["^status"], "args_deny": []}])[
            "rules"
        ][0]
        == "echo"
    )
    client.clear_allowed_commands()
    assert client.get_allowed_commands() == {"rules": []}
    assert client.memory_metrics()["total_memories"] == 0
    assert client.list_secrets() == [] and client.list_volumes() == [] and client.list_images() == []


def test_language_server_and_http_broker(
    client: CairnClient, scripted_server: Callable[[List[Answer]], ScriptedServer]
) -> None:
    # The live server of test/sdks/python.test.ts allows private egress, so the broker may reach
    # this machine's scripted server.
    target = scripted_server([json_answer(200, {"hello": "from the broker"}, {"x-answer": "yes"})])
    with client.sandbox() as sandbox:
        lsp_id = sandbox.lsp_start("python")["lsp_id"]
        assert sandbox.lsp_open(lsp_id, "module.py", "import os\nos.pa") == {"status": "opened"}
        labels = [item["label"] for item in sandbox.lsp_completion(lsp_id, "module.py", 1, 5)["items"]]
        assert "path" in labels
        assert sandbox.lsp_stop(lsp_id) == {"status": "stopped"}
        answer = sandbox.http_request(f"{target.url}/through", method="POST", body="ping", timeout=5)
    assert answer["status_code"] == 200 and json.loads(answer["body"]) == {"hello": "from the broker"}
    assert answer["headers"]["x-answer"] == "yes"
    assert target.requests == [("POST", "/through")]
