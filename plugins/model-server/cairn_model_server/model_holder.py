"""Holds the model: loads it once (at start with SVC_EAGER_LOAD, otherwise on first use)."""

import logging
import threading

from .devices import DeviceChoice
from .embedder import Embedder
from .model_files import resolve_model_files

logger = logging.getLogger("cairn_model_server")


class ModelHolder:
    def __init__(self, model: str, device: DeviceChoice, threads: int | None = None) -> None:
        self.model = model
        self.device = device
        self.threads = threads
        self.embedder: Embedder | None = None
        self._load_lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self.embedder is not None

    def load(self) -> Embedder:
        """The loaded model; the first caller loads it and concurrent callers wait for that load.

        A failed load raises and leaves nothing cached, so the next request tries again.
        """
        if self.embedder is not None:
            return self.embedder
        with self._load_lock:
            if self.embedder is None:
                files = resolve_model_files(self.model)
                embedder = Embedder(files, self.device.providers, self.threads)
                logger.info(
                    "model %s loaded on %s (%d dimensions)",
                    files.model_id,
                    self.device.device,
                    embedder.dimensions,
                )
                self.embedder = embedder
        return self.embedder
