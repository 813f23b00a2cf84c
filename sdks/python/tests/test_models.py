"""Every REST operation has an SDK operation that sends the right method to the right path with
field names the route knows, and whose result type (a TypedDict in cairn.models) names exactly the
fields the server's OpenAPI document (sdks/openapi.json, generated from the operation registry)
says it returns, nested objects and list items included."""

from __future__ import annotations

import inspect
import json
import typing
from pathlib import Path
from typing import Any, Callable, Dict, List, Union

import pytest

from cairn._core import Call
from cairn._operations import account, memory, previews, processes, resources, sandboxes, snapshots, tools

OPENAPI = json.loads((Path(__file__).resolve().parents[2] / "openapi.json").read_text())

# The SDK names that differ from the registry's (CONTRACT §7: create_image, account, usage, ...).
RENAMED = {
    "get_account": "account",
    "create_preview": "preview",
    "get_usage": "usage",
    "create_sandbox_image": "create_image",
    "get_sandbox_image": "get_image",
    "list_sandbox_images": "list_images",
    "delete_sandbox_image": "delete_image",
    "create_sandbox_volume": "create_volume",
    "get_sandbox_volume": "get_volume",
    "list_sandbox_volumes": "list_volumes",
    "delete_sandbox_volume": "delete_volume",
    "process_start": "start_process",
    "process_list": "list_processes",
    "process_get": "get_process",
    "process_stop": "stop_process",
    "process_wait": "wait_process",
}


def sdk_operations() -> Dict[str, Callable[..., Call[Any]]]:
    found: Dict[str, Callable[..., Call[Any]]] = {}
    for module in (account, memory, previews, processes, resources, sandboxes, snapshots, tools):
        for name, value in vars(module).items():
            if (
                callable(value)
                and not name.startswith("_")
                and getattr(value, "__module__", "") == module.__name__
            ):
                found[name] = value
    return found


# The raw file routes carry bytes, not JSON: they are client methods (upload_file, download_file)
# rather than operations returning a ``Call``, and test_file_bytes_live.py checks them.
RAW_ROUTES = {"upload_file", "download_file"}


def registry_operations() -> Dict[str, Dict[str, Any]]:
    operations: Dict[str, Dict[str, Any]] = {}
    for path, path_item in OPENAPI["paths"].items():
        for method, operation in path_item.items():
            if operation["operationId"] in RAW_ROUTES:
                continue
            operations[operation["operationId"]] = {**operation, "method": method.upper(), "path": path}
    return operations


def placeholder_call(operation: Callable[..., Call[Any]]) -> tuple[Call[Any], Dict[str, str]]:
    """The operation called with a stand-in for each required argument; also the strings used."""
    arguments: Dict[str, Any] = {}
    strings: Dict[str, str] = {}
    hints = typing.get_type_hints(operation)
    for name, parameter in inspect.signature(operation).parameters.items():
        if parameter.default is not inspect.Parameter.empty:
            continue
        annotation = hints[name]
        if annotation is str:
            arguments[name] = strings[name] = f"{name}-value"
        elif annotation in (int, float):
            # A path parameter may be a number (a preview's port): its text stands in the path.
            arguments[name] = annotation(1)
            strings[name] = str(annotation(1))
        else:
            arguments[name] = []
    return operation(**arguments), strings


def success_schema(operation: Dict[str, Any]) -> Dict[str, Any] | None:
    for status, response in operation["responses"].items():
        if status.startswith("2"):
            return response.get("content", {}).get("application/json", {}).get("schema")
    return None


def shape_problems(annotation: Any, schema: Dict[str, Any], where: str) -> List[str]:
    """Differences between a Python type and a JSON Schema, field names and nesting only."""
    if "anyOf" in schema:
        options = [option for option in schema["anyOf"] if option.get("type") != "null"]
        if len(options) == 1:
            return shape_problems(annotation, options[0], where)
        return []  # a union of shapes (a string or a rule; one sandbox or a list): checked by hand
    origin = typing.get_origin(annotation)
    if origin is Union:
        options = [option for option in typing.get_args(annotation) if option is not type(None)]
        return shape_problems(options[0], schema, where) if len(options) == 1 else []
    if typing.is_typeddict(annotation):
        if schema.get("type") != "object" or "properties" not in schema:
            return [f"{where}: {annotation.__name__} is an object, the server sends {schema.get('type')}"]
        hints = typing.get_type_hints(annotation)
        problems = []
        if set(hints) != set(schema["properties"]):
            missing = sorted(set(schema["properties"]) - set(hints))
            extra = sorted(set(hints) - set(schema["properties"]))
            problems.append(f"{where}: {annotation.__name__} lacks {missing}, has extra {extra}")
        for name in set(hints) & set(schema["properties"]):
            problems += shape_problems(hints[name], schema["properties"][name], f"{where}.{name}")
        return problems
    if origin in (list, List):
        if schema.get("type") != "array":
            return [f"{where}: a list here, the server sends {schema.get('type')}"]
        return shape_problems(typing.get_args(annotation)[0], schema.get("items", {}), f"{where}[]")
    return []


def test_every_rest_operation_has_an_sdk_operation() -> None:
    sdk = sdk_operations()
    missing = [name for name in registry_operations() if RENAMED.get(name, name) not in sdk]
    assert missing == []


@pytest.mark.parametrize("operation_id", sorted(registry_operations()))
def test_result_types_match_the_openapi_document(operation_id: str) -> None:
    operation = sdk_operations()[RENAMED.get(operation_id, operation_id)]
    result = typing.get_args(typing.get_type_hints(operation)["return"])[0]
    schema = success_schema(registry_operations()[operation_id])
    if schema is None:
        assert result is type(None), f"{operation_id} answers 204; the SDK should return None"
        return
    assert shape_problems(result, schema, operation_id) == []


@pytest.mark.parametrize("operation_id", sorted(registry_operations()))
def test_requests_match_the_openapi_document(operation_id: str) -> None:
    route = registry_operations()[operation_id]
    call, strings = placeholder_call(sdk_operations()[RENAMED.get(operation_id, operation_id)])
    expected_path = route["path"]
    for name, value in strings.items():
        expected_path = expected_path.replace("{" + name + "}", value)
    assert (call.method, call.path) == (route["method"], expected_path)
    parameters = route.get("parameters", [])
    known_query = {parameter["name"] for parameter in parameters if parameter["in"] == "query"}
    assert set(call.query or {}) <= known_query
    body_schema = route.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    if body_schema is None:
        assert not call.has_body
    else:
        assert call.has_body and set(call.body) <= set(body_schema["properties"])
