"""cairn.toolkits' specs, checked offline against each framework's own types: OpenAI's Chat
Completions and Responses tool types (and strict mode's schema rules, checked here), Anthropic's
tool type, LangChain's StructuredTool and its OpenAI conversion, Google ADK's tool declarations;
and the argument mapping every executor shares (MCP names, nulls, defaults, encoded arguments)."""

from __future__ import annotations

import json
from typing import Any, Dict, List, cast

import pytest
from anthropic.types import ToolParam as AnthropicToolParam
from anthropic.types import ToolUnionParam as AnthropicToolUnionParam
from google.adk.models.llm_request import LlmRequest
from google.genai import types as genai_types
from langchain_core.tools import StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from openai.types.chat import ChatCompletionFunctionTool, ChatCompletionFunctionToolParam
from openai.types.responses import FunctionTool, FunctionToolParam
from openai.types.shared_params import FunctionDefinition
from pydantic import TypeAdapter

from cairn import CairnClient
from cairn.toolkits import CairnToolkit, ToolInputError, tool_specs
from cairn.toolkits._executor import http_timeout, wire_input

# Strict mode's keywords (platform.openai.com/docs/guides/structured-outputs#supported-schemas).
STRICT_KEYWORDS = {
    "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
    "description", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "multipleOf", "minItems", "maxItems",
}  # fmt: skip


@pytest.fixture(scope="module")
def toolkit() -> CairnToolkit:
    return CairnToolkit(CairnClient("http://127.0.0.1:1", "cairn_offline"))


def strict_problems(schema: Dict[str, Any], where: str) -> List[str]:
    """Every place a schema breaks OpenAI's strict rules."""
    problems = [
        f"{where}: {keyword} is not permitted" for keyword in schema if keyword not in STRICT_KEYWORDS
    ]
    kind = schema.get("type")
    if kind == "object":
        properties = cast(Dict[str, Any], schema.get("properties", {}))
        if schema.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties must be false")
        if sorted(schema.get("required", [])) != sorted(properties):
            problems.append(f"{where}: every property must be required")
        for name, part in properties.items():
            problems += strict_problems(part, f"{where}.{name}")
    elif "type" not in schema and "anyOf" not in schema:
        problems.append(f"{where}: no type")
    if "items" in schema:
        problems += strict_problems(schema["items"], f"{where}[]")
    for part in schema.get("anyOf", []):
        problems += strict_problems(part, where)
    return problems


def test_every_mcp_tool_is_there_in_the_server_order() -> None:
    names = [spec["name"] for spec in tool_specs()]
    assert len(set(names)) == len(names)
    assert {"recall", "remember", "create_sandbox", "exec", "file_create", "process_start"} <= set(names)
    memory = [spec["name"] for spec in tool_specs("memory")]
    assert memory == ["remember", "ingest_memory", "recall", "memory_profile", "forget_memory"]
    assert [spec["name"] for spec in tool_specs("sandbox")] == [name for name in names if name not in memory]
    assert [spec["name"] for spec in tool_specs(names=["recall", "exec"])] == ["recall", "exec"]
    with pytest.raises(ValueError, match="no such tool gpu"):
        tool_specs(names=["gpu"])


def test_openai_chat_completions_tools_are_strict(toolkit: CairnToolkit) -> None:
    adapter = TypeAdapter(ChatCompletionFunctionToolParam)
    for tool in toolkit.openai_tools():
        adapter.validate_python(tool)
        model = ChatCompletionFunctionTool.model_validate(tool)
        assert model.function.strict is True
        assert set(tool["function"]) <= set(FunctionDefinition.__annotations__)
        parameters = tool["function"]["parameters"]
        assert strict_problems(parameters, tool["function"]["name"]) == []
    recall = next(tool for tool in toolkit.openai_tools() if tool["function"]["name"] == "recall")
    properties = recall["function"]["parameters"]["properties"]
    assert properties["query"] == {"type": "string", "description": "In plain words (1 to 400 characters)"}
    assert properties["limit"]["anyOf"][1] == {"type": "null"}


def test_openai_responses_tools_are_strict(toolkit: CairnToolkit) -> None:
    adapter = TypeAdapter(FunctionToolParam)
    for tool in toolkit.openai_responses_tools():
        adapter.validate_python(tool)
        assert set(tool) <= set(FunctionToolParam.__annotations__)
        assert FunctionTool.model_validate(tool).strict is True
        assert strict_problems(tool["parameters"], tool["name"]) == []


def test_anthropic_tools(toolkit: CairnToolkit) -> None:
    adapter = TypeAdapter(AnthropicToolParam)
    union = TypeAdapter(List[AnthropicToolUnionParam])
    union.validate_python(toolkit.anthropic_tools())
    for tool in toolkit.anthropic_tools():
        adapter.validate_python(tool)
        assert set(tool) <= set(AnthropicToolParam.__annotations__)
        assert tool["input_schema"]["type"] == "object"
    recall = next(tool for tool in toolkit.anthropic_tools() if tool["name"] == "recall")
    assert recall["input_schema"]["required"] == ["query"]


def test_langchain_structured_tools(toolkit: CairnToolkit) -> None:
    tools = toolkit.langchain_tools()
    assert all(isinstance(tool, StructuredTool) for tool in tools)
    assert [tool.name for tool in tools] == toolkit.tool_names
    for tool, spec in zip(tools, toolkit.specs, strict=True):
        converted = convert_to_openai_tool(tool)
        assert converted["function"]["name"] == spec["name"]
        assert converted["function"]["parameters"]["properties"] == spec["input_schema"].get("properties", {})
    recall = next(tool for tool in tools if tool.name == "recall")
    assert recall.args["query"]["type"] == "string"


def test_google_adk_declarations(toolkit: CairnToolkit) -> None:
    tools = toolkit.adk_tools()
    request = LlmRequest()
    for tool in tools:
        declaration = tool._get_declaration()
        assert isinstance(declaration, genai_types.FunctionDeclaration)
        assert declaration.name == tool.name
        genai_types.FunctionDeclaration.model_validate(declaration.model_dump())
    request.append_tools(tools)
    assert request.config is not None and request.config.tools
    declared = [
        declaration.name
        for holder in request.config.tools
        if isinstance(holder, genai_types.Tool)
        for declaration in holder.function_declarations or []
    ]
    assert declared == toolkit.tool_names


def spec(name: str) -> Any:
    return tool_specs(names=[name])[0]


def test_arguments_become_the_wire_input_as_mcp_makes_it() -> None:
    # recall's query is q on REST; a null for an optional argument is "left out".
    assert wire_input(spec("recall"), {"query": "tea", "scope": None, "limit": None}) == {"q": "tea"}
    # The MCP tool's own defaults are sent (exec keeps 16 KiB of output); a null that is a value stays.
    assert wire_input(spec("exec"), {"session_id": "s", "command": "ls", "timeout": None}) == {
        "session_id": "s",
        "command": "ls",
        "timeout": None,
        "max_output_bytes": 16384,
    }
    # Strict mode's encodings: a map as entries, a free-form object as JSON text; both plain too.
    mounts = [{"key": "v1", "value": "/data"}]
    assert wire_input(spec("create_sandbox"), {"volume_mounts": mounts})["volume_mounts"] == {"v1": "/data"}
    assert wire_input(spec("create_sandbox"), {"volume_mounts": {"v1": "/d"}})["volume_mounts"] == {
        "v1": "/d"
    }
    remembered = wire_input(spec("remember"), {"content": "x", "metadata": '{"source": "chat"}'})
    assert remembered["metadata"] == {"source": "chat"}
    with pytest.raises(ToolInputError) as refused:
        wire_input(spec("recall"), {"query": "x", "q": "y", "gpu_count": 1})
    assert [detail["loc"] for detail in refused.value.details or []] == [["q"], ["gpu_count"]]
    with pytest.raises(ToolInputError):
        wire_input(spec("remember"), {"content": "x", "metadata": "{not json"})


def test_a_server_side_wait_lengthens_the_http_wait() -> None:
    assert http_timeout(spec("recall"), {"query": "x"}) is None
    assert http_timeout(spec("exec"), {"timeout": 90}) == 105
    assert http_timeout(spec("exec"), {"timeout": None}) == 45
    assert http_timeout(spec("process_wait"), {"timeout_seconds": 60}) == 75


def test_a_bad_call_answers_an_error_body_without_a_request(toolkit: CairnToolkit) -> None:
    unknown = toolkit.run("gpu_create", {})
    assert unknown.is_error and json.loads(unknown.content)["error"]["code"] == "not_found"
    bad = json.loads(toolkit.execute("recall", "{not json"))
    assert bad["error"]["code"] == "validation_error" and "not valid JSON" in bad["error"]["message"]
    down = json.loads(toolkit.execute("recall", {"query": "x"}))
    assert down["error"]["code"] == "connection_failed"
