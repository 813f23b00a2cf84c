"""Runs a sentence-embedding model: tokenise, batch, run on ONNX Runtime, pool, normalise."""

import threading

import numpy as np
import onnxruntime
from tokenizers import Tokenizer

from .model_files import ModelFiles
from .requests import plan_batches


class Embedder:
    """A loaded model. `embed` is safe to call from several threads; runs take turns."""

    def __init__(self, files: ModelFiles, providers: tuple[str, ...], threads: int | None = None) -> None:
        self.files = files
        self.tokenizer = Tokenizer.from_file(str(files.tokenizer_file))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=files.max_tokens)
        self.pad_id = self.tokenizer.token_to_id("[PAD]") or 0
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        if threads is not None:
            options.intra_op_num_threads = threads
        self.session = onnxruntime.InferenceSession(
            str(files.onnx_file), sess_options=options, providers=list(providers)
        )
        self.input_names = {item.name for item in self.session.get_inputs()}
        # A sentence-transformers export carries its own pooled output; others give token vectors.
        output_names = [item.name for item in self.session.get_outputs()]
        pooled_output = "sentence_embedding" in output_names
        self.output_name = "sentence_embedding" if pooled_output else output_names[0]
        # The native width, from one run, so /health and `dimensions` checks know it.
        self.dimensions = int(self._run([self.tokenizer.encode("warm up")]).shape[1])
        self._run_lock = threading.Lock()

    def embed(self, texts: list[str], max_batch_size: int) -> tuple[np.ndarray, int, int]:
        """Unit vectors in the order of `texts`, the tokens used, and the number of model runs."""
        encodings = self.tokenizer.encode_batch(texts)
        vectors = np.empty((len(texts), self.dimensions), dtype=np.float32)
        batches = plan_batches([len(encoding.ids) for encoding in encodings], max_batch_size)
        for positions in batches:
            with self._run_lock:
                vectors[positions] = self._run([encodings[position] for position in positions])
        tokens = sum(len(encoding.ids) for encoding in encodings)
        return vectors, tokens, len(batches)

    def _run(self, encodings: list) -> np.ndarray:
        width = max(len(encoding.ids) for encoding in encodings)
        input_ids = np.full((len(encodings), width), self.pad_id, dtype=np.int64)
        attention_mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            input_ids[row, : len(encoding.ids)] = encoding.ids
            attention_mask[row, : len(encoding.ids)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": attention_mask}
        if "token_type_ids" in self.input_names:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        feeds = {name: feeds[name] for name in self.input_names}
        # A dense output for an embedding model; asarray also tells the type checker so.
        output = np.asarray(self.session.run([self.output_name], feeds)[0])
        pooled = output if output.ndim == 2 else self._pool(output, attention_mask)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)

    def _pool(self, token_vectors: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        if self.files.pooling == "cls":
            return token_vectors[:, 0]
        mask = attention_mask[:, :, None].astype(np.float32)
        return (token_vectors * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
