"""The Python runner of test/conformance/scenario.json: each step calls the SDK's public method for
its operation and checks the answer as the scenario says.

    python tests/run_conformance.py <base URL> [scenario.json]

Prints ``ok <title>`` or ``FAIL <title>: <why>`` per step and exits 1 at the first failure.
"""

from __future__ import annotations

import json
import re
import secrets
import sys
from pathlib import Path
from typing import Any, Callable, Dict

from cairn import CairnApiError, CairnClient

Arguments = Dict[str, Any]

CALLS: dict[str, Callable[[CairnClient, Arguments], Any]] = {
    "signup": lambda client, args: client.signup(args["email"], args["password"]),
    "create_api_key": lambda client, args: client.create_api_key(args["access_token"], args["name"]),
    "remember": lambda client, args: client.remember(
        args["content"],
        **{name: args[name] for name in ("scope", "kind", "metadata", "importance") if name in args},
    ),
    "recall": lambda client, args: client.recall(
        args["query"], **{name: args[name] for name in ("scope", "limit") if name in args}
    ),
    "memory_profile": lambda client, args: client.memory_profile(**args),
    "memory_relations": lambda client, args: client.memory_relations(
        args["memory_id"], **{name: args[name] for name in ("limit",) if name in args}
    ),
    "export_memories": lambda client, args: client.export_memories(**args),
    "import_memories": lambda client, args: client.import_memories(
        args["memories"], relations=args.get("relations")
    ),
    "forget_memory": lambda client, args: client.forget_memory(args["memory_id"]),
    "get_memory": lambda client, args: client.get_memory(args["memory_id"]),
    "create_sandbox": lambda client, args: client.create_sandbox(**args),
    "get_sandbox": lambda client, args: client.get_sandbox(args["session_id"]),
    "destroy_sandbox": lambda client, args: client.destroy_sandbox(args["session_id"]),
    "exec": lambda client, args: client.exec(
        args["session_id"], args["command"], **{name: args[name] for name in ("timeout",) if name in args}
    ),
    "file_create": lambda client, args: client.file_create(args["session_id"], args["path"], args["content"]),
    "view": lambda client, args: client.view(args["session_id"], args["path"]),
    "str_replace": lambda client, args: client.str_replace(
        args["session_id"], args["path"], args["old_str"], args["new_str"]
    ),
    "list_tools": lambda client, args: client.list_tools(),
    "call_tool": lambda client, args: client.call_tool(args["name"], args.get("input")),
}

_WHOLE = re.compile(r"^\{\{(\w+)\}\}$")
_INSIDE = re.compile(r"\{\{(\w+)\}\}")


def substitute(value: Any, variables: dict[str, Any]) -> Any:
    """``{{name}}`` alone is the saved value itself; inside a longer string it is written into the text."""
    if isinstance(value, str):
        whole = _WHOLE.match(value)
        if whole:
            return variables[whole.group(1)]
        return _INSIDE.sub(lambda match: str(variables[match.group(1)]), value)
    if isinstance(value, list):
        return [substitute(item, variables) for item in value]
    if isinstance(value, dict):
        return {key: substitute(item, variables) for key, item in value.items()}
    return value


def pick(value: Any, path: str) -> Any:
    parts = path.split(".")
    current = value
    for index, part in enumerate(parts):
        if part == "*":
            rest = ".".join(parts[index + 1 :])
            return [pick(item, rest) if rest else item for item in current]
        if isinstance(current, list):
            current = current[int(part)] if part.isdigit() and int(part) < len(current) else None
        elif isinstance(current, dict):
            current = current.get(part)
        else:
            return None
    return current


def same(actual: Any, expected: Any) -> bool:
    """JSON equality: a boolean never equals a number, as in JSON."""
    if isinstance(actual, bool) or isinstance(expected, bool):
        return type(actual) is type(expected) and actual == expected
    if isinstance(actual, list) and isinstance(expected, list):
        return len(actual) == len(expected) and all(same(a, e) for a, e in zip(actual, expected, strict=True))
    if isinstance(actual, dict) and isinstance(expected, dict):
        return actual.keys() == expected.keys() and all(same(actual[key], expected[key]) for key in actual)
    return actual == expected


def type_of(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {list: "array", dict: "object", str: "string"}.get(type(value), "null")


def check(result: Any, expectation: dict[str, Any]) -> str | None:
    path = expectation["path"]
    actual = pick(result, path)
    shown = json.dumps(actual)
    if "equals" in expectation and not same(actual, expectation["equals"]):
        return f"{path} is {shown}, expected {json.dumps(expectation['equals'])}"
    if "prefix" in expectation and not str(actual).startswith(expectation["prefix"]):
        return f"{path} is {shown}, expected it to start with {expectation['prefix']}"
    if "contains" in expectation and expectation["contains"] not in str(actual):
        return f"{path} is {shown}, expected it to contain {expectation['contains']}"
    if "includes" in expectation and not (isinstance(actual, list) and expectation["includes"] in actual):
        return f"{path} is {shown}, expected it to include {expectation['includes']}"
    if "type" in expectation and type_of(actual) != expectation["type"]:
        return f"{path} is {shown}, expected a {expectation['type']}"
    if "length_at_least" in expectation and not (
        isinstance(actual, list) and len(actual) >= expectation["length_at_least"]
    ):
        return f"{path} is {shown}, expected at least {expectation['length_at_least']} items"
    return None


def run_step(step: dict[str, Any], variables: dict[str, Any], base_url: str) -> str | None:
    call = CALLS.get(step["call"])
    if call is None:
        return f"no SDK method for {step['call']}"
    api_key = str(variables[step["as"]]) if "as" in step else None
    expected_error = step.get("error")
    with CairnClient(base_url, api_key or "", timeout=60) as client:
        try:
            result = call(client, substitute(step.get("args", {}), variables))
        except CairnApiError as error:
            if not expected_error:
                return f"failed: {error!r}"
            if error.status_code != expected_error["status"] or error.code != expected_error["code"]:
                expected = f"{expected_error['status']} {expected_error['code']}"
                return f"failed with {error.status_code} {error.code}, expected {expected}"
            wanted_type = expected_error.get("api_error_type")
            if wanted_type and error.api_error_type != wanted_type:
                return f"api_error_type is {error.api_error_type}, expected {wanted_type}"
            return None
    if expected_error:
        return f"succeeded, expected {expected_error['status']} {expected_error['code']}"
    for expectation in step.get("expect", []):
        problem = check(result, substitute(expectation, variables))
        if problem:
            return problem
    for name, path in step.get("save", {}).items():
        variables[name] = pick(result, path)
    return None


def main(arguments: list[str]) -> int:
    base_url = arguments[0]
    default_scenario = Path(__file__).resolve().parents[3] / "test/conformance/scenario.json"
    scenario = json.loads(Path(arguments[1] if len(arguments) > 1 else default_scenario).read_text())
    variables = {**scenario["variables"], "run": secrets.token_hex(6)}
    for step in scenario["steps"]:
        problem = run_step(step, variables, base_url)
        print(f"FAIL {step['title']}: {problem}" if problem else f"ok {step['title']}", flush=True)
        if problem:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
