"""Parsing an OpenAI-style embeddings request and shaping its vectors: pure functions, no model."""

from dataclasses import dataclass
from typing import Any

import numpy as np


class InvalidRequestError(Exception):
    """A request the server refuses with 400; `code` is the machine-readable reason."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class EmbeddingRequest:
    inputs: list[str]
    model: str | None
    dimensions: int | None
    encoding_format: str
    # "query" for a search query, "document" otherwise (the default, as OpenAI's API has no field).
    input_type: str = "document"


def parse_embedding_request(body: Any, *, max_inputs: int, max_input_characters: int) -> EmbeddingRequest:
    if not isinstance(body, dict):
        raise InvalidRequestError("invalid_input", "the body must be a JSON object")
    raw_input = body.get("input")
    if isinstance(raw_input, str):
        inputs = [raw_input]
    elif isinstance(raw_input, list):
        inputs = raw_input
    else:
        raise InvalidRequestError("invalid_input", "input must be a string or a list of strings")
    if not inputs:
        raise InvalidRequestError("invalid_input", "input must not be an empty list")
    if len(inputs) > max_inputs:
        raise InvalidRequestError(
            "too_many_inputs", f"input has {len(inputs)} items; at most {max_inputs} are accepted"
        )
    for index, item in enumerate(inputs):
        if not isinstance(item, str):
            raise InvalidRequestError("invalid_input", f"input[{index}] is not a string")
        if not item.strip():
            raise InvalidRequestError("invalid_input", f"input[{index}] is empty")
        if len(item) > max_input_characters:
            raise InvalidRequestError(
                "input_too_long",
                f"input[{index}] has {len(item)} characters; at most {max_input_characters} are accepted",
            )

    model = body.get("model")
    if model is not None and not isinstance(model, str):
        raise InvalidRequestError("invalid_input", "model must be a string")
    dimensions = body.get("dimensions")
    if dimensions is not None and (
        isinstance(dimensions, bool) or not isinstance(dimensions, int) or dimensions < 1
    ):
        raise InvalidRequestError("invalid_input", "dimensions must be a positive integer")
    encoding_format = body.get("encoding_format") or "float"
    if encoding_format not in ("float", "base64"):
        raise InvalidRequestError("invalid_input", "encoding_format must be float or base64")
    input_type = body.get("input_type")
    if input_type is None:
        input_type = "document"
    if input_type not in ("query", "document"):
        raise InvalidRequestError("invalid_input", "input_type must be query or document")
    return EmbeddingRequest(inputs, model, dimensions, encoding_format, input_type)


# How much padding a batch may carry: its padded size (inputs x longest input) may be at most this
# many times its real tokens. On a CPU a padded token costs as much as a real one, so one batch of
# mixed lengths ran slower than the same inputs one by one; grouping like lengths ran 2.5x faster.
PADDING_ALLOWANCE = 1.25


def plan_batches(lengths: list[int], max_batch_size: int) -> list[list[int]]:
    """Input positions grouped into model runs: at most max_batch_size each, like lengths together.

    Inputs are taken shortest first; a run closes when it is full or when the next (longer) input
    would pad it past PADDING_ALLOWANCE. Callers put each vector back at its input's position, so
    the order of the response never depends on this grouping.
    """
    order = sorted(range(len(lengths)), key=lambda position: lengths[position])
    batches: list[list[int]] = []
    current: list[int] = []
    real_tokens = 0
    for position in order:
        length = lengths[position]
        too_padded = (len(current) + 1) * length > PADDING_ALLOWANCE * (real_tokens + length)
        if current and (len(current) >= max_batch_size or too_padded):
            batches.append(current)
            current, real_tokens = [], 0
        current.append(position)
        real_tokens += length
    if current:
        batches.append(current)
    return batches


def fit_dimensions(vectors: np.ndarray, dimensions: int | None) -> np.ndarray:
    """Truncate unit vectors to the requested width and scale them back to unit length."""
    native = vectors.shape[1]
    if dimensions is None or dimensions == native:
        return vectors
    if dimensions > native:
        raise InvalidRequestError(
            "invalid_dimensions",
            f"dimensions {dimensions} is larger than the model's {native}",
        )
    truncated = vectors[:, :dimensions]
    norms = np.linalg.norm(truncated, axis=1, keepdims=True)
    return truncated / np.maximum(norms, 1e-12)
