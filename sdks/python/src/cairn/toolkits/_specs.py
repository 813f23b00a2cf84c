"""The generated tool specs (``cairn/tool_specs.json``, written by ``npm run contract`` from the
operation manifest's MCP tools) and the framework shapes built from them."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any, Dict, List, Literal, TypedDict, cast

ToolProfile = Literal["all", "memory", "sandbox"]
JsonSchema = Dict[str, Any]


class ToolDone(TypedDict):
    status: str
    id_argument: str


class ToolSpec(TypedDict):
    """One MCP tool as the toolkits offer it (scripts/contract/toolkits.ts says what each field means)."""

    name: str
    operation: str
    profile: Literal["memory", "sandbox"]
    title: str
    description: str
    input_schema: JsonSchema
    strict_input_schema: JsonSchema
    rename: Dict[str, str]
    defaults: Dict[str, Any]
    nullable: List[str]
    encoded: Dict[str, Literal["entries", "json"]]
    done: ToolDone | None
    waits: Dict[str, float]


@lru_cache(maxsize=1)
def _all_specs() -> tuple[ToolSpec, ...]:
    text = resources.files("cairn").joinpath("tool_specs.json").read_text(encoding="utf-8")
    return tuple(cast(List[ToolSpec], json.loads(text)["tools"]))


def tool_specs(profile: ToolProfile = "all", names: List[str] | None = None) -> List[ToolSpec]:
    """The MCP tools of a profile (``all``, ``memory``, ``sandbox``), or those named, in the server's order.
    An unknown name raises ``ValueError``."""
    specs = [spec for spec in _all_specs() if profile == "all" or spec["profile"] == profile]
    if names is None:
        return specs
    known = {spec["name"]: spec for spec in specs}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ValueError(f"no such tool {', '.join(unknown)}; the tools are {', '.join(known)}")
    return [known[name] for name in names]


def openai_chat_tool(spec: ToolSpec) -> Dict[str, Any]:
    """A Chat Completions function tool in strict mode."""
    return {
        "type": "function",
        "function": {
            "name": spec["name"],
            "description": spec["description"],
            "parameters": spec["strict_input_schema"],
            "strict": True,
        },
    }


def openai_responses_tool(spec: ToolSpec) -> Dict[str, Any]:
    """A Responses API function tool in strict mode."""
    return {
        "type": "function",
        "name": spec["name"],
        "description": spec["description"],
        "parameters": spec["strict_input_schema"],
        "strict": True,
    }


def anthropic_tool(spec: ToolSpec) -> Dict[str, Any]:
    """An Anthropic Messages tool: the MCP tool's own schema."""
    return {"name": spec["name"], "description": spec["description"], "input_schema": spec["input_schema"]}
