"""Serving a model by path: the files a directory must hold, and the pooling its config names.

Uses the real default model's files, laid out as a sentence-transformers ONNX export would be.
"""

import json

import numpy as np
import pytest

from cairn_model_server.embedder import Embedder
from cairn_model_server.model_files import ModelNotFoundError, resolve_model_files

CPU = ("CPUExecutionProvider",)


@pytest.fixture
def exported(tmp_path):
    built_in = resolve_model_files("all-MiniLM-L6-v2")
    folder = tmp_path / "my-model"
    (folder / "onnx").mkdir(parents=True)
    (folder / "onnx/model.onnx").symlink_to(built_in.onnx_file)
    (folder / "tokenizer.json").symlink_to(built_in.tokenizer_file)
    return folder


def test_a_directory_is_served_under_its_name_with_mean_pooling_and_512_tokens(exported):
    files = resolve_model_files(str(exported))
    assert (files.model_id, files.pooling, files.max_tokens) == ("my-model", "mean", 512)


def test_a_directory_with_the_same_model_gives_the_same_vectors_as_the_built_in(exported):
    built_in = Embedder(resolve_model_files("all-MiniLM-L6-v2"), CPU)
    by_path = Embedder(resolve_model_files(str(exported)), CPU)
    texts = ["The cat sat on the mat.", "Stocks fell sharply on Monday."]
    np.testing.assert_allclose(by_path.embed(texts, 8)[0], built_in.embed(texts, 8)[0], atol=1e-5)


def test_the_pooling_and_token_limit_come_from_the_sentence_transformers_configs(exported):
    (exported / "1_Pooling").mkdir()
    (exported / "1_Pooling/config.json").write_text(json.dumps({"pooling_mode_cls_token": True}))
    (exported / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 128}))
    files = resolve_model_files(str(exported))
    assert (files.pooling, files.max_tokens) == ("cls", 128)
    mean = Embedder(resolve_model_files("all-MiniLM-L6-v2"), CPU).embed(["a short text"], 1)[0]
    cls = Embedder(files, CPU).embed(["a short text"], 1)[0]
    assert np.linalg.norm(cls[0]) == pytest.approx(1.0, abs=1e-5)
    assert float(mean[0] @ cls[0]) < 0.99


def test_a_name_that_is_neither_built_in_nor_a_directory_is_refused(tmp_path):
    with pytest.raises(ModelNotFoundError, match="neither a built-in model"):
        resolve_model_files("BAAI/bge-small-en-v1.5")
    with pytest.raises(ModelNotFoundError, match=r"must hold model\.onnx"):
        resolve_model_files(str(tmp_path))


def test_text_past_the_models_token_limit_is_truncated_not_refused():
    # The built-in model reads 256 word pieces; what follows them cannot change the vector.
    embedder = Embedder(resolve_model_files("all-MiniLM-L6-v2"), CPU)
    vectors, tokens, _ = embedder.embed(["river " * 300 + "alpha", "river " * 300 + "omega"], 2)
    np.testing.assert_allclose(vectors[0], vectors[1], atol=1e-6)
    assert tokens == 2 * 256


def test_the_thread_setting_reaches_onnx_runtime():
    files = resolve_model_files("all-MiniLM-L6-v2")
    assert Embedder(files, CPU, threads=1).session.get_session_options().intra_op_num_threads == 1
    assert Embedder(files, CPU).session.get_session_options().intra_op_num_threads == 0
