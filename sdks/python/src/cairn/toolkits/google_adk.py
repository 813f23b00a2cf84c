"""Cairn's tools as Google ADK tools: a ``BaseTool`` per MCP tool whose declaration is a
``FunctionDeclaration`` with the tool's JSON Schema (``parameters_json_schema``) and whose
``run_async`` is the toolkit's executor. A call answers the parsed JSON result (ADK hands the
model a dict); a failure answers the REST error body ``{"error": {...}}``."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Dict, List, cast

from google.adk.tools.base_tool import BaseTool
from google.genai import types

from ._specs import ToolSpec

if TYPE_CHECKING:
    from google.adk.tools.tool_context import ToolContext

    from . import CairnToolkit


class CairnAdkTool(BaseTool):
    """One Cairn tool for an ADK agent (``Agent(tools=toolkit.adk_tools())``)."""

    def __init__(self, toolkit: CairnToolkit, spec: ToolSpec) -> None:
        super().__init__(name=spec["name"], description=spec["description"])
        self._toolkit = toolkit
        self._spec = spec

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        return types.FunctionDeclaration(
            name=self._spec["name"],
            description=self._spec["description"],
            parameters_json_schema=self._spec["input_schema"],
        )

    async def run_async(self, *, args: Dict[str, Any], tool_context: ToolContext) -> Any:
        # A function response is a JSON object: a list (create_sandbox with count) goes as {"items": [...]}.
        result: Any = json.loads(await self._toolkit.aexecute(self.name, args))
        return cast(Dict[str, Any], result) if isinstance(result, dict) else {"items": result}


def adk_tools(toolkit: CairnToolkit) -> List[BaseTool]:
    """One ADK tool per tool of the toolkit."""
    return [CairnAdkTool(toolkit, spec) for spec in toolkit.specs]
