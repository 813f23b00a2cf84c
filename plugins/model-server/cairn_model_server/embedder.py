"""Runs a sentence-embedding model: tokenise, batch, run on ONNX Runtime, pool, normalise.

Some models put every text in a narrow cone: e5-small-v2 gives two unrelated sentences a cosine
of 0.74 on average, where all-MiniLM-L6-v2 gives 0.06. Cairn's thresholds (recall's semantic
floor, corrections by meaning) read cosines on the second scale, as do most clients. So at load
the server embeds `calibration.txt` (54 unrelated everyday sentences); when their mean pairwise
cosine is over CENTRE_ABOVE, every vector it returns has their mean vector taken off and is made
unit length again. On LoCoMo that keeps e5's recall@10 by vectors (0.657 -> 0.654) and brings an
unrelated pair's cosine to all-MiniLM's scale (0.74 -> 0.07; a question and its evidence 0.83 ->
0.43, against all-MiniLM's 0.47).

A model quantised dynamically (e5-small-v2's int8 export) takes its activations' scales over the
whole run, so a text's vector would depend on the texts batched with it (a cosine of 0.986 to
itself alone): the same memory embedded twice, or on two databases, would rank differently. At
load the server embeds a few calibration sentences alone and together; a model whose vectors
differ runs one text at a time (on this machine 8.2 against 6.5 ms a text for e5-small-v2).
"""

import threading
from pathlib import Path

import numpy as np
import onnxruntime
from tokenizers import Tokenizer

from .model_files import ModelFiles
from .requests import plan_batches

# Mean pairwise cosine of the calibration sentences above which a model's vectors are centred.
CENTRE_ABOVE = 0.3
CALIBRATION_FILE = Path(__file__).with_name("calibration.txt")


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
        self.centre: np.ndarray | None = None
        self.batch_independent = True
        calibration = [line.strip() for line in CALIBRATION_FILE.read_text().splitlines() if line.strip()]
        sample = calibration[:8]
        alone = np.concatenate([self.embed([text], 1)[0] for text in sample])
        together = self.embed(sample, len(sample))[0]
        self.batch_independent = bool(((alone * together).sum(axis=1) > 0.9999).all())
        documents = self.embed(calibration, 64)[0]
        pairs = documents @ documents.T
        self.calibration_cosine = float(pairs[~np.eye(len(calibration), dtype=bool)].mean())
        if self.calibration_cosine > CENTRE_ABOVE:
            queries = self.embed(calibration, 64, "query")[0]
            self.centre = np.concatenate([documents, queries]).mean(axis=0)

    def embed(
        self, texts: list[str], max_batch_size: int, input_type: str = "document"
    ) -> tuple[np.ndarray, int, int]:
        """Unit vectors in the order of `texts`, the tokens used, and the number of model runs.

        `input_type` "query" for a search query, "document" for anything else (the prompt each
        gets, for a model trained with prompts).
        """
        if not self.batch_independent:
            max_batch_size = 1
        prefix = self.files.query_prefix if input_type == "query" else self.files.document_prefix
        if prefix:
            texts = [prefix + text for text in texts]
        encodings = self.tokenizer.encode_batch(texts)
        vectors = np.empty((len(texts), self.dimensions), dtype=np.float32)
        batches = plan_batches([len(encoding.ids) for encoding in encodings], max_batch_size)
        for positions in batches:
            with self._run_lock:
                vectors[positions] = self._run([encodings[position] for position in positions])
        tokens = sum(len(encoding.ids) for encoding in encodings)
        if self.centre is not None:
            vectors -= self.centre
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
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
