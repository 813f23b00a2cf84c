"""Every Cairn MCP tool for an agent framework: specs for OpenAI (Chat Completions and Responses,
strict mode), Anthropic, LangChain and Google ADK, and one executor that runs a model's tool call.

    toolkit = CairnToolkit(CairnClient())                 # or profile="memory" / "sandbox", names=[...]
    tools = toolkit.openai_tools()                        # or openai_responses_tools(), anthropic_tools()
    text = toolkit.execute(call.function.name, call.function.arguments)   # JSON text, never raises

The tools are the MCP server's (names, argument names, descriptions, schemas), generated from the
operation manifest into ``cairn/tool_specs.json``. A call goes to ``POST /v1/tools/{operation}``
(``call_tool``) with the arguments mapped as the MCP tool maps them; its answer comes back as JSON
text, and a failure as the REST error body ``{"error": {"code", "message", ...}}``.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Dict, List

from ..async_client import AsyncCairnClient
from ..client import CairnClient
from ._executor import (
    Arguments,
    ToolInputError,
    ToolResult,
    failure,
    http_timeout,
    parse_arguments,
    success,
    unknown_tool,
    wire_input,
)
from ._specs import (
    JsonSchema,
    ToolProfile,
    ToolSpec,
    anthropic_tool,
    openai_chat_tool,
    openai_responses_tool,
    tool_specs,
)

if TYPE_CHECKING:
    from google.adk.tools.base_tool import BaseTool
    from langchain_core.tools import StructuredTool


class CairnToolkit:
    """Cairn's tools for one client (sync ``CairnClient`` or ``AsyncCairnClient``): a profile of
    them (``all``, ``memory``, ``sandbox``, as ``cairn mcp serve --tools``) or those named."""

    def __init__(
        self,
        client: CairnClient | AsyncCairnClient,
        *,
        profile: ToolProfile = "all",
        names: List[str] | None = None,
    ) -> None:
        self.client = client
        self.specs: List[ToolSpec] = tool_specs(profile, names)
        self._by_name: Dict[str, ToolSpec] = {spec["name"]: spec for spec in self.specs}

    @property
    def tool_names(self) -> List[str]:
        return list(self._by_name)

    # Specs, one shape per framework.
    def openai_tools(self) -> List[Dict[str, Any]]:
        """Chat Completions function tools, ``strict: true``."""
        return [openai_chat_tool(spec) for spec in self.specs]

    def openai_responses_tools(self) -> List[Dict[str, Any]]:
        """Responses API function tools, ``strict: true``."""
        return [openai_responses_tool(spec) for spec in self.specs]

    def anthropic_tools(self) -> List[Dict[str, Any]]:
        """Anthropic Messages tools (``name``, ``description``, ``input_schema``)."""
        return [anthropic_tool(spec) for spec in self.specs]

    def langchain_tools(self) -> List[StructuredTool]:
        """LangChain ``StructuredTool``s (needs ``langchain-core``)."""
        from .langchain import langchain_tools

        return langchain_tools(self)

    def adk_tools(self) -> List[BaseTool]:
        """Google ADK tools (needs ``google-adk``)."""
        from .google_adk import adk_tools

        return adk_tools(self)

    # Execution.
    def run(self, name: str, arguments: Arguments = None) -> ToolResult:
        """Runs a tool call on a sync client; never raises."""
        if not isinstance(self.client, CairnClient):
            raise TypeError("run and execute need a CairnClient; with AsyncCairnClient use arun or aexecute")
        spec = self._by_name.get(name)
        if spec is None:
            return unknown_tool(name, self.tool_names)
        try:
            given = parse_arguments(arguments)
            output = self.client.call_tool(
                spec["operation"], wire_input(spec, given), timeout=http_timeout(spec, given)
            )
        except Exception as error:  # the model gets the error body, whatever went wrong
            return failure(spec, error)
        return success(spec, given, output)

    async def arun(self, name: str, arguments: Arguments = None) -> ToolResult:
        """Runs a tool call on either client (a sync one in a worker thread); never raises."""
        if isinstance(self.client, CairnClient):
            return await asyncio.to_thread(self.run, name, arguments)
        spec = self._by_name.get(name)
        if spec is None:
            return unknown_tool(name, self.tool_names)
        try:
            given = parse_arguments(arguments)
            output = await self.client.call_tool(
                spec["operation"], wire_input(spec, given), timeout=http_timeout(spec, given)
            )
        except Exception as error:
            return failure(spec, error)
        return success(spec, given, output)

    def execute(self, name: str, arguments: Arguments = None) -> str:
        """The tool call's answer as JSON text (an error as ``{"error": {...}}``); never raises."""
        return self.run(name, arguments).content

    async def aexecute(self, name: str, arguments: Arguments = None) -> str:
        return (await self.arun(name, arguments)).content


__all__ = [
    "CairnToolkit",
    "JsonSchema",
    "ToolInputError",
    "ToolProfile",
    "ToolResult",
    "ToolSpec",
    "anthropic_tool",
    "openai_chat_tool",
    "openai_responses_tool",
    "tool_specs",
]
