"""The ASGI app: GET /health, GET /health/ready, POST /v1/embeddings (OpenAI's request and response).

Run with `uvicorn --factory cairn_model_server.app:create_app`; settings come from SVC_ variables.
"""

import base64
import hmac
import json
import logging
import sys
from contextlib import asynccontextmanager

import numpy as np
import onnxruntime
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from .devices import DeviceUnavailableError, choose_device
from .model_holder import ModelHolder
from .requests import EmbeddingRequest, InvalidRequestError, fit_dimensions, parse_embedding_request
from .settings import Settings, SettingsError, read_settings

logger = logging.getLogger("cairn_model_server")

# Answers of at most this many vectors are rendered on the event loop (see `embeddings`).
INLINE_RESPONSE_VECTORS = 8


def error(status: int, code: str, message: str) -> JSONResponse:
    # Cairn's envelope ({code, message}) with OpenAI's `type`, so either kind of client reads it.
    kind = {401: "authentication_error"}.get(status, "invalid_request_error")
    if status >= 500:
        kind = "server_error"
    return JSONResponse({"error": {"code": code, "message": message, "type": kind}}, status)


def create_app(settings: Settings | None = None) -> Starlette:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s:     %(message)s")
    try:
        settings = settings or read_settings()
        # A device that cannot be had fails here, at start, not at the first request.
        device = choose_device(settings.device, onnxruntime.get_available_providers())
    except (SettingsError, DeviceUnavailableError) as failure:
        # One line saying what to fix, not a traceback through uvicorn.
        print(f"model server: {failure}", file=sys.stderr)
        raise SystemExit(2) from None
    holder = ModelHolder(settings.model, device, settings.threads)
    # Room for the largest valid request (every input at its longest, JSON-escaped) and no more.
    max_body_bytes = settings.max_inputs * (settings.max_input_characters * 6 + 16) + 4096

    async def health(request: Request) -> JSONResponse:
        embedder = holder.embedder
        return JSONResponse(
            {
                "status": "ok",
                "embedding_loaded": embedder is not None,
                "device": device.device,
                "model": embedder.files.model_id if embedder else settings.model,
                "dimensions": embedder.dimensions if embedder else None,
                "max_batch_size": settings.max_batch_size,
            }
        )

    async def ready(request: Request) -> JSONResponse:
        if holder.loaded:
            return JSONResponse({"status": "ready"})
        return JSONResponse({"status": "loading"}, 503)

    async def embeddings(request: Request) -> JSONResponse:
        if settings.api_key is not None and not _bearer_matches(request, settings.api_key):
            return error(401, "unauthorized", "a valid Bearer token is required")
        raw = bytearray()
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > max_body_bytes:
                return error(413, "body_too_large", f"the body is over {max_body_bytes} bytes")
        try:
            body = json.loads(raw)
        except ValueError:
            return error(400, "invalid_json", "the body is not valid JSON")
        try:
            parsed = parse_embedding_request(
                body,
                max_inputs=settings.max_inputs,
                max_input_characters=settings.max_input_characters,
            )
        except InvalidRequestError as failure:
            return error(400, failure.code, str(failure))
        try:
            # Loaded once: after that, no thread hop to hand it over.
            embedder = holder.embedder or await run_in_threadpool(holder.load)
        except Exception as failure:
            logger.exception("loading the model failed")
            return error(503, "model_unavailable", f"the model could not be loaded: {failure}")
        model_id = embedder.files.model_id
        if parsed.model is not None and parsed.model not in (model_id, settings.model):
            return error(400, "model_not_found", f"this server serves {model_id}, not {parsed.model}")
        if parsed.dimensions is not None and parsed.dimensions > embedder.dimensions:
            return error(
                400,
                "invalid_dimensions",
                f"dimensions {parsed.dimensions} is larger than {model_id}'s {embedder.dimensions}",
            )
        try:
            vectors, tokens, batches = await run_in_threadpool(
                embedder.embed, parsed.inputs, settings.max_batch_size, parsed.input_type
            )
        except Exception as failure:
            logger.exception("embedding failed")
            return error(503, "model_failure", f"the model failed: {failure}")
        # Shaping and rendering thousands of floats takes a while: off the event loop, like the model.
        # A few vectors (a search query's) take less than the hop to a thread and back.
        if len(vectors) <= INLINE_RESPONSE_VECTORS:
            return _embedding_response(vectors, parsed, model_id, tokens, batches)
        return await run_in_threadpool(_embedding_response, vectors, parsed, model_id, tokens, batches)

    @asynccontextmanager
    async def lifespan(app: Starlette):
        logger.info("model server: device %s, model %s", device.device, settings.model)
        if settings.eager_load:
            # A model that cannot load stops the start (uvicorn exits non-zero).
            try:
                await run_in_threadpool(holder.load)
            except Exception as failure:
                logger.error("model server: the model could not be loaded: %s", failure)
                raise
        yield

    return Starlette(
        routes=[
            Route("/health", health, methods=["GET"]),
            Route("/health/ready", ready, methods=["GET"]),
            Route("/v1/embeddings", embeddings, methods=["POST"]),
        ],
        lifespan=lifespan,
    )


def _embedding_response(
    vectors: np.ndarray, parsed: EmbeddingRequest, model_id: str, tokens: int, batches: int
) -> JSONResponse:
    vectors = fit_dimensions(vectors, parsed.dimensions)
    data = [
        {"object": "embedding", "embedding": _encode(vector, parsed.encoding_format), "index": index}
        for index, vector in enumerate(vectors)
    ]
    return JSONResponse(
        {
            "object": "list",
            "data": data,
            "model": model_id,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        },
        # How many model runs served this request: batching made visible to operators and tests.
        headers={"X-Model-Batches": str(batches)},
    )


def _bearer_matches(request: Request, api_key: str) -> bool:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(token.encode(), api_key.encode())


def _encode(vector: np.ndarray, encoding_format: str) -> list[float] | str:
    if encoding_format == "base64":
        return base64.b64encode(vector.astype("<f4").tobytes()).decode("ascii")
    return [float(value) for value in vector]
