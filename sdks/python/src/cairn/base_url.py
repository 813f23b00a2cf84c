"""Where a client sends its API key.

A base URL must be https, or plain http on this machine only (the host is exactly ``localhost``
or ``127.0.0.1``): a key must never cross a network in the clear. The URL is parsed, not
prefix-matched, so ``http://localhost.evil.com``, ``http://localhost@evil.com`` and
``http://127.0.0.1.nip.io`` are refused.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from .errors import CairnConfigError

DEFAULT_BASE_URL = "http://127.0.0.1:8090"

_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1"})


def normalize_base_url(text: str) -> str:
    """The base URL, scheme and host lower-cased, trailing slashes trimmed; refused ones raise."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port  # raises ValueError for a port that is not a number
    except ValueError as error:
        raise CairnConfigError(f"Invalid base URL {text!r}: {error}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise CairnConfigError(f"Invalid base URL {text!r}: not an absolute http(s) URL")
    if parts.username is not None or parts.password is not None:
        raise CairnConfigError(f"Invalid base URL {text!r}: it must not carry a user name or password")
    if parts.query or parts.fragment:
        raise CairnConfigError(f"Invalid base URL {text!r}: it must not carry a query or fragment")
    host = parts.hostname.lower()
    if scheme == "http" and host not in _LOCAL_HOSTS:
        raise CairnConfigError(
            f"Invalid base URL {text!r}: use https (plain http only for localhost or 127.0.0.1)"
        )
    # An IPv6 literal keeps its brackets; only https can reach one (no local http form is allowed).
    shown_host = f"[{host}]" if ":" in host else host
    authority = shown_host if port is None else f"{shown_host}:{port}"
    return f"{scheme}://{authority}{parts.path}".rstrip("/")
