"""A model's tool call (name + JSON arguments) as a call of ``POST /v1/tools/{operation}`` through
the SDK's ``call_tool``: the arguments mapped to the operation's wire input as the MCP tool maps
them, the answer as JSON text. Nothing here names a tool: each spec says how its arguments travel."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, cast

from ..errors import CairnApiError, CairnConnectionError
from ._specs import ToolSpec

Arguments = str | Mapping[str, Any] | None

#: Extra HTTP wait beyond a server-side wait (exec's timeout), so the server's answer comes first.
WAIT_MARGIN_SECONDS = 15.0


@dataclass(frozen=True)
class ToolResult:
    """What a tool call gives the model: JSON text, and whether it failed (Anthropic's ``is_error``)."""

    content: str
    is_error: bool


class ToolInputError(Exception):
    """Arguments refused before any request, as the server refuses them (a ``validation_error``)."""

    def __init__(self, message: str, details: List[Dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


def _error_text(code: str, message: str, **fields: Any) -> str:
    body: Dict[str, Any] = {"code": code, "message": message}
    body.update({name: value for name, value in fields.items() if value is not None})
    return json.dumps({"error": body})


def parse_arguments(arguments: Arguments) -> Dict[str, Any]:
    """The arguments as a dict: JSON text (OpenAI) or a mapping (Anthropic, LangChain, ADK)."""
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        return {}
    if isinstance(arguments, str):
        try:
            parsed: Any = json.loads(arguments)
        except ValueError as error:
            raise ToolInputError(f"The arguments are not valid JSON: {error}") from error
    else:
        parsed = arguments
    if not isinstance(parsed, Mapping):
        raise ToolInputError("The arguments must be a JSON object")
    return dict(cast(Mapping[str, Any], parsed))


def _decode(spec: ToolSpec, argument: str, value: Any) -> Any:
    """An argument strict mode sends encoded, back in the shape the operation takes."""
    encoding = spec["encoded"].get(argument)
    if encoding == "json" and isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError as error:
            raise ToolInputError(
                "Invalid request",
                [{"type": "invalid_json", "loc": [argument], "msg": f"not valid JSON: {error}"}],
            ) from error
    if encoding == "entries" and isinstance(value, list):
        entries = cast(List[Any], value)
        if all(isinstance(entry, Mapping) and "key" in entry for entry in entries):
            pairs = cast(List[Mapping[str, Any]], entries)
            return {entry["key"]: entry.get("value") for entry in pairs}
    return cast(Any, value)


def wire_input(spec: ToolSpec, arguments: Mapping[str, Any]) -> Dict[str, Any]:
    """The operation's input from the tool's arguments, as the MCP tool makes it: unknown arguments
    refused, a null that is not a value of its own left out, the tool's defaults filled, names mapped."""
    known = list(spec["input_schema"].get("properties", {}))
    unknown = [name for name in arguments if name not in known]
    if unknown:
        takes = ", ".join(known) or "none"
        raise ToolInputError(
            "Invalid request",
            [
                {
                    "type": "unknown_argument",
                    "loc": [name],
                    "msg": f"{spec['name']} takes no argument {json.dumps(name)}; it takes {takes}",
                }
                for name in unknown
            ],
        )
    given: Dict[str, Any] = {}
    for name, value in arguments.items():
        if value is None and name not in spec["nullable"]:
            continue
        given[name] = _decode(spec, name, value)
    for name, value in spec["defaults"].items():
        given.setdefault(name, value)
    return {spec["rename"].get(name, name): value for name, value in given.items()}


def http_timeout(spec: ToolSpec, arguments: Mapping[str, Any]) -> float | None:
    """How long to wait for an answer when the server itself waits (exec, process_wait), else None."""
    seconds = 0.0
    for name, fallback in spec["waits"].items():
        value = arguments.get(name)
        seconds += value if isinstance(value, (int, float)) and not isinstance(value, bool) else fallback
    return seconds + WAIT_MARGIN_SECONDS if seconds > 0 else None


def _located(spec: ToolSpec, details: Any) -> Any:
    """A validation error's locations as the tool names its arguments (``query``, not ``body.q``)."""
    if not isinstance(details, list):
        return details
    arguments = {field: argument for argument, field in spec["rename"].items()}
    located: List[Any] = []
    for item in cast(List[Any], details):
        entry = dict(cast(Mapping[str, Any], item)) if isinstance(item, Mapping) else None
        if entry is not None and isinstance(entry.get("loc"), list):
            loc = list(cast(List[Any], entry["loc"]))
            if loc and loc[0] in ("body", "query", "path"):  # where REST carried it; a tool has arguments
                loc = loc[1:]
            if loc and isinstance(loc[0], str):
                loc[0] = arguments.get(loc[0], loc[0])
            entry["loc"] = loc
            located.append(entry)
        else:
            located.append(item)
    return located


def success(spec: ToolSpec, arguments: Mapping[str, Any], output: Any) -> ToolResult:
    done = spec["done"]
    if done is not None and output in ({}, None):
        output = {"status": done["status"], "id": arguments.get(done["id_argument"])}
    return ToolResult(json.dumps(output), False)


def failure(spec: ToolSpec | None, error: BaseException) -> ToolResult:
    """Any failure as the REST error body ``{"error": {"code", "message", ...}}``, never raised."""
    if isinstance(error, ToolInputError):
        return ToolResult(_error_text("validation_error", error.message, details=error.details), True)
    if isinstance(error, CairnApiError):
        details = _located(spec, error.details) if spec is not None else error.details
        text = _error_text(
            error.code,
            error.server_message or error.message,
            retryable=error.retryable,
            remediation=error.remediation,
            details=details,
        )
        return ToolResult(text, True)
    if isinstance(error, CairnConnectionError):
        return ToolResult(_error_text("connection_failed", f"Cairn did not answer: {error.reason}"), True)
    return ToolResult(_error_text("internal_error", f"{type(error).__name__}: {error}"), True)


def unknown_tool(name: str, names: List[str]) -> ToolResult:
    return ToolResult(
        _error_text("not_found", f"Unknown tool {name!r}; the tools are {', '.join(names) or 'none'}"), True
    )
