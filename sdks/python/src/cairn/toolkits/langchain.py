"""Cairn's tools as LangChain ``StructuredTool``s (``langchain-core``): the MCP tool's JSON Schema
as ``args_schema``, the toolkit's executor as the function (and the coroutine). A call answers JSON
text; a failure answers the REST error body, so the model reads it rather than the run stopping."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List

from langchain_core.tools import StructuredTool

from ._specs import ToolSpec

if TYPE_CHECKING:
    from . import CairnToolkit


def _tool(toolkit: CairnToolkit, spec: ToolSpec) -> StructuredTool:
    name = spec["name"]

    def call(**arguments: Any) -> str:
        return toolkit.execute(name, arguments)

    async def call_async(**arguments: Any) -> str:
        return await toolkit.aexecute(name, arguments)

    return StructuredTool(
        name=name,
        description=spec["description"],
        args_schema=spec["input_schema"],
        func=call,
        coroutine=call_async,
    )


def langchain_tools(toolkit: CairnToolkit) -> List[StructuredTool]:
    """One ``StructuredTool`` per tool of the toolkit."""
    return [_tool(toolkit, spec) for spec in toolkit.specs]
