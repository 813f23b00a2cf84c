"""Accounts, dashboard sessions, API keys and the command allowlist."""

from __future__ import annotations

from typing import List, Sequence

from .._core import Call, segment
from ..models import (
    Account,
    AllowedCommandRule,
    AllowedCommands,
    ApiKey,
    ApiKeyCreated,
    TokenResponse,
    Usage,
)


def signup(email: str, password: str) -> Call[TokenResponse]:
    """Create an account; the answer's ``access_token`` is a dashboard token for the key routes."""
    return Call(
        "POST",
        "/v1/auth/signup",
        body={"email": email, "password": password},
        has_body=True,
        uses_api_key=False,
    )


def login(email: str, password: str) -> Call[TokenResponse]:
    """A fresh dashboard token for an existing account."""
    return Call(
        "POST",
        "/v1/auth/login",
        body={"email": email, "password": password},
        has_body=True,
        uses_api_key=False,
    )


def create_api_key(access_token: str, name: str, *, role: str = "admin") -> Call[ApiKeyCreated]:
    """A new API key (its raw ``key`` is in this answer only), made with a dashboard token.
    ``role``: ``"admin"`` or ``"member"`` (cannot delete snapshots or mint takeover tokens)."""
    return Call(
        "POST",
        "/v1/api-keys",
        body={"name": name, "role": role},
        has_body=True,
        uses_api_key=False,
        credential=access_token,
    )


def list_api_keys(access_token: str) -> Call[List[ApiKey]]:
    """The account's keys, newest first, revoked ones included."""
    return Call("GET", "/v1/api-keys", uses_api_key=False, credential=access_token)


def revoke_api_key(access_token: str, key_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/api-keys/{segment(key_id)}", uses_api_key=False, credential=access_token)


def account() -> Call[Account]:
    """Who the API key belongs to."""
    return Call("GET", "/v1/account")


def usage() -> Call[Usage]:
    """Sandbox hours and concurrency used against the account's limits, and rate-limit headroom."""
    return Call("GET", "/v1/usage")


def get_allowed_commands() -> Call[AllowedCommands]:
    """The exec allowlist; an empty ``rules`` list means unrestricted."""
    return Call("GET", "/v1/account/allowed-commands")


def set_allowed_commands(rules: Sequence[AllowedCommandRule]) -> Call[AllowedCommands]:
    """Replaces the allowlist: command names, or ``{command, args_allow, args_deny}`` rules."""
    return Call("PUT", "/v1/account/allowed-commands", body={"rules": list(rules)}, has_body=True)


def clear_allowed_commands() -> Call[None]:
    return Call("DELETE", "/v1/account/allowed-commands")
