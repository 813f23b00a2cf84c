"""Cairn memory as tools for an LLM agent loop (OpenAI or Anthropic tool calling).

    specs = create_tool_specs(enable_memory_tools=True, hosted_api_key=key, format="anthropic")
    execute = create_tool_executor(enable_memory_tools=True, hosted_api_key=key)
    text = execute(tool_call.name, tool_call.input)   # a JSON string, or "Memory error: ..."

The five tools (remember, ingest_memory, recall, memory_profile, forget_memory) are the MCP
server's own definitions, shipped as ``memory_tool_specs.json``. Memory tools exist only when
``enable_memory_tools`` is true and an API key is given (``hosted_api_key``, else
``$CAIRN_API_KEY``); enabling them without one is an error at construction. ``hosted_base_url``
defaults to ``$CAIRN_BASE_URL``, else ``http://127.0.0.1:8090``. A tool call never raises: any
failure comes back as ``Memory error: <detail>``, text the model can read and act on (a refused
input names each field and why, so the model can correct it).
"""

from __future__ import annotations

import json
import os
from importlib import resources
from typing import Any, Dict, List, Literal, Mapping, cast

from .base_url import DEFAULT_BASE_URL, normalize_base_url
from .client import CairnClient
from .errors import CairnApiError, CairnConfigError, CairnConnectionError
from .retry import RetryPolicy
from .toolkits import openai_chat_tool, tool_specs

ToolFormat = Literal["openai", "anthropic"]
ToolSpec = Dict[str, Any]
Arguments = str | Mapping[str, Any] | None


def memory_tool_definitions() -> List[Dict[str, Any]]:
    """The five memory tools as ``{name, description, input_schema}`` (the MCP server's definitions)."""
    text = resources.files("cairn").joinpath("memory_tool_specs.json").read_text(encoding="utf-8")
    return cast(List[Dict[str, Any]], json.loads(text))


def _settings(hosted_api_key: str | None, hosted_base_url: str | None) -> tuple[str | None, str]:
    """The key and base URL as given, else from the environment (as ``CairnClient`` reads them)."""
    key = hosted_api_key if hosted_api_key is not None else os.environ.get("CAIRN_API_KEY") or None
    base_url = (
        hosted_base_url
        if hosted_base_url is not None
        else os.environ.get("CAIRN_BASE_URL") or DEFAULT_BASE_URL
    )
    return key, base_url


def _memory_enabled(enable_memory_tools: bool, hosted_api_key: str | None, hosted_base_url: str) -> bool:
    normalize_base_url(hosted_base_url)  # the base-URL rule applies at construction
    if enable_memory_tools and not hosted_api_key:
        raise CairnConfigError(
            "enable_memory_tools=True needs hosted_api_key or CAIRN_API_KEY (a Cairn API key)"
        )
    return enable_memory_tools


def _refusal(error: CairnApiError) -> str:
    """The server's message, with each refused field and why when it lists them (validation)."""
    detail = error.server_message or f"memory request failed with HTTP {error.status_code}"
    details: Any = error.details
    if isinstance(details, list):
        fields: List[str] = []
        for item in cast(List[Any], details):
            if not isinstance(item, Mapping):
                continue
            entry = cast(Mapping[str, Any], item)
            location = cast(List[Any], entry.get("loc") or [])
            where = ".".join(str(part) for part in location if part not in ("body", "query")) or "input"
            fields.append(f"{where}: {entry.get('msg', '')}")
        if fields:
            detail = f"{detail} ({'; '.join(fields)})"
    return detail


def create_tool_specs(
    *,
    enable_memory_tools: bool = False,
    hosted_api_key: str | None = None,
    hosted_base_url: str | None = None,
    format: ToolFormat = "openai",
) -> List[ToolSpec]:
    """Tool specs for an LLM API: OpenAI Chat Completions ``{"type": "function", "function": {...}}``
    in strict mode, or Anthropic Messages ``{"name", "description", "input_schema"}``. Empty unless
    memory tools are on. ``cairn.toolkits`` offers every tool, not only memory."""
    if format not in ("openai", "anthropic"):
        raise CairnConfigError(f'format must be "openai" or "anthropic", not {format!r}')
    if not _memory_enabled(enable_memory_tools, *_settings(hosted_api_key, hosted_base_url)):
        return []
    definitions = memory_tool_definitions()
    if format == "anthropic":
        return definitions
    # Strict mode's form of the same tools (every argument required, null for "left out").
    return [openai_chat_tool(spec) for spec in tool_specs(names=[tool["name"] for tool in definitions])]


def _run(client: CairnClient, name: str, arguments: Mapping[str, Any]) -> Any:
    """One tool call through the SDK; the tools always send a scope ("default" when omitted)."""
    scope = arguments.get("scope", "default")
    if name == "remember":
        return client.remember(
            arguments["content"],
            scope=scope,
            kind=arguments.get("kind", "fact"),
            metadata=arguments.get("metadata") or {},
        )
    if name == "ingest_memory":
        return client.ingest_memory(
            arguments["content"], scope=scope, source_session_id=arguments.get("source_session_id")
        )
    if name == "recall":
        return client.recall(arguments["query"], scope=scope, limit=arguments.get("limit", 10))
    if name == "memory_profile":
        return client.memory_profile(scope=scope, limit=arguments.get("limit", 20))
    if name == "forget_memory":
        client.forget_memory(arguments["memory_id"])
        return {"status": "forgotten", "id": arguments["memory_id"]}
    raise LookupError(name)


class ToolExecutor:
    """Runs a named memory tool with its JSON arguments and returns a string, never raising."""

    def __init__(self, client: CairnClient | None, tool_names: List[str]) -> None:
        self._client = client
        self.tool_names = tool_names

    def __call__(self, name: str, arguments: Arguments = None) -> str:
        return self.execute(name, arguments)

    def execute(self, name: str, arguments: Arguments = None) -> str:
        """The tool's result as JSON text, or ``Memory error: <detail>``."""
        if self._client is None or name not in self.tool_names:
            return f"Memory error: unknown tool {name!r}; available: {', '.join(self.tool_names) or 'none'}"
        try:
            parsed = json.loads(arguments) if isinstance(arguments, str) and arguments.strip() else arguments
        except ValueError as error:
            return f"Memory error: the arguments are not valid JSON: {error}"
        if parsed is None:
            parsed = {}
        if not isinstance(parsed, Mapping):
            return "Memory error: the arguments must be a JSON object"
        # A strict-mode call sends null for what it leaves out, and remember's metadata as JSON text.
        given = {key: value for key, value in cast(Mapping[str, Any], parsed).items() if value is not None}
        try:
            if isinstance(given.get("metadata"), str):
                given["metadata"] = json.loads(given["metadata"])
        except ValueError as error:
            return f"Memory error: metadata is not valid JSON: {error}"
        try:
            return json.dumps(_run(self._client, name, given))
        except CairnApiError as error:
            return f"Memory error: {_refusal(error)}"
        except CairnConnectionError as error:
            return f"Memory error: memory connection failed: {error.reason}"
        except KeyError as error:
            return f"Memory error: missing argument {error}"
        except Exception as error:  # the model gets text, whatever went wrong
            return f"Memory error: {type(error).__name__}: {error}"

    def close(self) -> None:
        if self._client is not None:
            self._client.close()


def create_tool_executor(
    *,
    enable_memory_tools: bool = False,
    hosted_api_key: str | None = None,
    hosted_base_url: str | None = None,
    timeout: float = 30.0,
    retry: bool | RetryPolicy | None = None,
) -> ToolExecutor:
    """The executor matching ``create_tool_specs`` with the same settings."""
    key, base_url = _settings(hosted_api_key, hosted_base_url)
    if not _memory_enabled(enable_memory_tools, key, base_url):
        return ToolExecutor(None, [])
    client = CairnClient(base_url, key, timeout=timeout, retry=retry)
    return ToolExecutor(client, [tool["name"] for tool in memory_tool_definitions()])


__all__ = [
    "ToolExecutor",
    "ToolFormat",
    "create_tool_executor",
    "create_tool_specs",
    "memory_tool_definitions",
]
