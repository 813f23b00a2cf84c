"""Sandboxes and what runs inside them: commands, the HTTP broker, files and language servers."""

from __future__ import annotations

import base64
from typing import Any, Dict, List, Literal, Mapping, Sequence, Tuple, cast

from .._core import SANDBOX_TIMEOUT_MARGIN, Call, segment
from .._generated_types import (
    DEFAULT_CREATE_SANDBOX_SIZE,
    DEFAULT_EXEC_TIMEOUT,
    DEFAULT_GLOB_PATH,
    DEFAULT_GREP_MAX_MATCHES,
    DEFAULT_GREP_PATH,
    DEFAULT_HTTP_REQUEST_METHOD,
    DEFAULT_HTTP_REQUEST_TIMEOUT,
    DEFAULT_LIST_SANDBOXES_ACTIVE_ONLY,
    DEFAULT_LS_PATH,
    DEFAULT_STR_REPLACE_REPLACE_ALL,
)
from ..models import (
    ExecResult,
    FileView,
    FileWritten,
    GlobResult,
    GrepResult,
    HttpResponse,
    Listing,
    LspCompletion,
    LspStarted,
    LspStatus,
    OutputKeep,
    Replacement,
    Sandbox,
    SandboxCreated,
    SandboxSize,
)

#: How file content travels on file_create and view.
FileEncoding = Literal["utf-8", "base64"]


def _sandbox_body(count: int, options: Dict[str, Any]) -> Dict[str, Any]:
    return {"count": count, **options}


def create_sandbox(
    *,
    label: str | None = None,
    size: SandboxSize = DEFAULT_CREATE_SANDBOX_SIZE,
    storage_gb: float | None = None,
    lifetime_minutes: int | None = None,
    secret_names: Sequence[str] | None = None,
    image_id: str | None = None,
    mcp_connection_names: Sequence[str] | None = None,
    volume_mounts: Mapping[str, str] | None = None,
) -> Call[SandboxCreated]:
    """A new sandbox session (a quota refusal raises ``QuotaExceededError``)."""
    body = _sandbox_body(
        1,
        {
            "label": label,
            "size": size,
            "storage_gb": storage_gb,
            "lifetime_minutes": lifetime_minutes,
            "secret_names": list(secret_names) if secret_names is not None else None,
            "image_id": image_id,
            "mcp_connection_names": list(mcp_connection_names) if mcp_connection_names is not None else None,
            "volume_mounts": dict(volume_mounts) if volume_mounts is not None else None,
        },
    )
    return Call("POST", "/v1/sandboxes", body=body, has_body=True)


def _as_list(created: Any) -> List[SandboxCreated]:
    return cast(List[SandboxCreated], created if isinstance(created, list) else [created])


def create_sandboxes(
    count: int,
    *,
    label: str | None = None,
    size: SandboxSize = DEFAULT_CREATE_SANDBOX_SIZE,
    storage_gb: float | None = None,
    lifetime_minutes: int | None = None,
    image_id: str | None = None,
) -> Call[List[SandboxCreated]]:
    """Several sandboxes (1-10) in one all-or-nothing call; always a list."""
    body = _sandbox_body(
        count,
        {
            "label": label,
            "size": size,
            "storage_gb": storage_gb,
            "lifetime_minutes": lifetime_minutes,
            "image_id": image_id,
        },
    )
    return Call("POST", "/v1/sandboxes", body=body, has_body=True, convert=_as_list)


def get_sandbox(session_id: str) -> Call[Sandbox]:
    """A session, also after it was destroyed or expired."""
    return Call("GET", f"/v1/sandboxes/{segment(session_id)}")


def list_sandboxes(*, active_only: bool = DEFAULT_LIST_SANDBOXES_ACTIVE_ONLY) -> Call[List[Sandbox]]:
    return Call("GET", "/v1/sandboxes", query={"active_only": active_only})


def destroy_sandbox(session_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/sandboxes/{segment(session_id)}")


def _exec_body(
    command: str,
    timeout: int,
    description: str | None,
    max_output_bytes: int | None = None,
    keep: OutputKeep | None = None,
) -> Dict[str, Any]:
    """The exec request's JSON, shared by ``exec`` and the streamed ``exec_stream``."""
    body: Dict[str, Any] = {"command": command, "timeout": timeout}
    optional = {"description": description, "max_output_bytes": max_output_bytes, "keep": keep}
    body.update({name: value for name, value in optional.items() if value is not None})
    return body


def exec(
    session_id: str,
    command: str,
    *,
    timeout: int = DEFAULT_EXEC_TIMEOUT,
    description: str | None = None,
    max_output_bytes: int | None = None,
    keep: OutputKeep | None = None,
) -> Call[ExecResult]:
    """Runs a shell command in /workspace; the HTTP call waits ``timeout`` + 15 s.
    ``max_output_bytes`` cuts each of stdout and stderr to that many bytes, keeping ``keep``
    (``"head"``, ``"tail"`` or, by default, ``"both"`` ends) with a marker where it cut; the
    answer's ``stdout_omitted_bytes`` and ``stderr_omitted_bytes`` count what was cut."""
    return Call(
        "POST",
        f"/v1/sandboxes/{segment(session_id)}/exec",
        body=_exec_body(command, timeout, description, max_output_bytes, keep),
        has_body=True,
        timeout=timeout + SANDBOX_TIMEOUT_MARGIN,
    )


def http_request(
    session_id: str,
    url: str,
    *,
    method: str = DEFAULT_HTTP_REQUEST_METHOD,
    headers: Mapping[str, str] | None = None,
    body: str | None = None,
    timeout: int = DEFAULT_HTTP_REQUEST_TIMEOUT,
) -> Call[HttpResponse]:
    """An HTTP request made by the broker for the sandbox; ``{{secret:name}}`` placeholders allowed."""
    payload = {"method": method, "url": url, "headers": dict(headers or {}), "body": body, "timeout": timeout}
    return Call(
        "POST",
        f"/v1/sandboxes/{segment(session_id)}/http-request",
        body=payload,
        has_body=True,
        timeout=timeout + SANDBOX_TIMEOUT_MARGIN,
    )


def _files(session_id: str, action: str, body: Dict[str, Any]) -> Call[Any]:
    return Call("POST", f"/v1/sandboxes/{segment(session_id)}/files{action}", body=body, has_body=True)


def file_create(
    session_id: str, path: str, content: str | bytes, *, encoding: FileEncoding | None = None
) -> Call[FileWritten]:
    """Creates or overwrites a file (relative paths are under /workspace). ``str`` content is
    text; ``bytes`` are sent base64 and written exactly (at most 10 MiB; more: ``upload_file``).
    ``encoding="base64"`` says a ``str`` is base64 already."""
    body: Dict[str, Any]
    if isinstance(content, (bytes, bytearray)):
        body = {"path": path, "content": base64.b64encode(content).decode("ascii"), "encoding": "base64"}
    else:
        body = {"path": path, "content": content, "encoding": encoding or "utf-8"}
    return _files(session_id, "", body)


def view(
    session_id: str,
    path: str,
    *,
    view_range: Tuple[int, int] | None = None,
    encoding: FileEncoding = "utf-8",
    max_output_bytes: int | None = None,
    keep: OutputKeep | None = None,
) -> Call[FileView]:
    """A file's text (``view_range`` = 1-indexed first and last line), or a directory's entries.
    A file that is not UTF-8 is refused (``file_not_utf8``) unless ``encoding="base64"``, which
    returns its exact bytes base64-encoded in ``content``. ``max_output_bytes`` cuts the text
    (after ``view_range``) to that many bytes, keeping ``keep`` (by default ``"head"``); the
    answer's ``truncated``, ``omitted_bytes`` and ``omitted_lines`` say what was cut."""
    body: Dict[str, Any] = {
        "path": path,
        "view_range": list(view_range) if view_range else None,
        "encoding": encoding,
    }
    if max_output_bytes is not None:
        body["max_output_bytes"] = max_output_bytes
    if keep is not None:
        body["keep"] = keep
    return _files(session_id, "/view", body)


def str_replace(
    session_id: str,
    path: str,
    old_str: str,
    new_str: str,
    *,
    replace_all: bool = DEFAULT_STR_REPLACE_REPLACE_ALL,
) -> Call[Replacement]:
    """Replaces ``old_str`` (which must be unique unless ``replace_all``) with ``new_str``."""
    body = {"path": path, "old_str": old_str, "new_str": new_str, "replace_all": replace_all}
    return _files(session_id, "/str-replace", body)


def ls(session_id: str, path: str = DEFAULT_LS_PATH) -> Call[Listing]:
    return _files(session_id, "/ls", {"path": path})


def glob(session_id: str, pattern: str, *, path: str = DEFAULT_GLOB_PATH) -> Call[GlobResult]:
    return _files(session_id, "/glob", {"pattern": pattern, "path": path})


def grep(
    session_id: str,
    pattern: str,
    *,
    path: str = DEFAULT_GREP_PATH,
    glob: str | None = None,
    max_matches: int = DEFAULT_GREP_MAX_MATCHES,
) -> Call[GrepResult]:
    body = {"pattern": pattern, "path": path, "glob": glob, "max_matches": max_matches}
    return _files(session_id, "/grep", body)


def _lsp(session_id: str, action: str, body: Dict[str, Any]) -> Call[Any]:
    return Call("POST", f"/v1/sandboxes/{segment(session_id)}/lsp/{action}", body=body, has_body=True)


def lsp_start(session_id: str, language: str) -> Call[LspStarted]:
    """Starts a language server ("python", "typescript") in the sandbox."""
    return _lsp(session_id, "start", {"language": language})


def lsp_open(session_id: str, lsp_id: str, path: str, content: str) -> Call[LspStatus]:
    return _lsp(session_id, f"{segment(lsp_id)}/open", {"path": path, "content": content})


def lsp_completion(session_id: str, lsp_id: str, path: str, line: int, character: int) -> Call[LspCompletion]:
    """Completions at a 0-indexed position."""
    body: Dict[str, str | int] = {"path": path, "line": line, "character": character}
    return _lsp(session_id, f"{segment(lsp_id)}/completion", body)


def lsp_stop(session_id: str, lsp_id: str) -> Call[LspStatus]:
    return _lsp(session_id, f"{segment(lsp_id)}/stop", {})
