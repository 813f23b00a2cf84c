"""The model server's settings, read once from SVC_ environment variables into a typed record."""

import os
from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_MODEL = "e5-small-v2"


class SettingsError(Exception):
    """A setting whose value cannot be used; the server refuses to start with it."""


@dataclass(frozen=True)
class Settings:
    model: str = DEFAULT_MODEL
    device: str = "auto"
    eager_load: bool = False
    max_batch_size: int = 128
    api_key: str | None = None
    # Per request: at most this many inputs, each at most this many characters (OpenAI's limits
    # are 2048 inputs and 8192 tokens; a character bound is checked before any tokenising).
    max_inputs: int = 2048
    max_input_characters: int = 8192
    # Threads for one model run; None lets ONNX Runtime use every physical core. read_settings
    # defaults to half the cores (default_threads).
    threads: int | None = None


def default_threads() -> int:
    """Half the cores this process may run on, at least one.

    The model server shares its machine with the control plane and the database: a hybrid recall
    embeds its query while its lexical ranking runs, then walks the vector index, and a query's
    few tokens run no faster on more threads (test/bench/semantic.ts: 4.3 ms on one or two of two
    cores, hybrid p95 36 against 42 ms with one). Batches lose little (docs/model-server.md).
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, cores // 2)


def read_settings(environment: Mapping[str, str] = os.environ) -> Settings:
    def text(name: str) -> str | None:
        value = environment.get(name, "").strip()
        return value or None

    def positive(name: str, default: int) -> int:
        raw = text(name)
        if raw is None:
            return default
        if not raw.isdigit() or int(raw) < 1:
            raise SettingsError(f"{name} must be a positive whole number, not {raw!r}")
        return int(raw)

    eager = (text("SVC_EAGER_LOAD") or "false").lower()
    if eager not in ("true", "false", "1", "0"):
        raise SettingsError(f"SVC_EAGER_LOAD must be true or false, not {eager!r}")
    return Settings(
        model=text("SVC_MODEL_EMBEDDING_MODEL") or DEFAULT_MODEL,
        device=(text("SVC_MODEL_DEVICE") or "auto").lower(),
        eager_load=eager in ("true", "1"),
        max_batch_size=positive("SVC_MODEL_MAX_BATCH_SIZE", 128),
        api_key=text("SVC_MODEL_API_KEY"),
        max_inputs=positive("SVC_MODEL_MAX_INPUTS", 2048),
        max_input_characters=positive("SVC_MODEL_MAX_INPUT_CHARACTERS", 8192),
        threads=positive("SVC_MODEL_THREADS", default_threads()),
    )
