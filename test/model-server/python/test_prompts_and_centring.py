"""e5-small-v2, the default model: its query and passage prompts, and the centring that puts its
cosines on the scale Cairn's thresholds read (embedder.py). Uses the real models' files."""

import json
from dataclasses import replace

import numpy as np
import pytest

from cairn_model_server.embedder import CENTRE_ABOVE, Embedder
from cairn_model_server.model_files import resolve_model_files

CPU = ("CPUExecutionProvider",)


@pytest.fixture(scope="module")
def e5():
    return Embedder(resolve_model_files("e5-small-v2"), CPU)


def test_e5_is_built_in_with_its_prompts():
    files = resolve_model_files("intfloat/e5-small-v2")
    assert (files.model_id, files.pooling, files.max_tokens) == ("e5-small-v2", "mean", 512)
    assert (files.query_prefix, files.document_prefix) == ("query: ", "passage: ")
    assert files.onnx_file.stat().st_size > 30_000_000


def test_a_query_gets_the_query_prompt_and_anything_else_the_passage_prompt(e5):
    text = ["Who is the chief executive?"]
    query = e5.embed(text, 1, "query")[0][0]
    document = e5.embed(text, 1)[0][0]
    assert float(query @ document) < 0.99
    # The prompt is part of the text the model reads: the same as embedding it spelled out, with
    # the prompts turned off.
    bare = Embedder(resolve_model_files("e5-small-v2"), CPU)
    bare.files = replace(bare.files, query_prefix="")
    np.testing.assert_allclose(bare.embed(["query: " + text[0]], 1, "query")[0][0], query, atol=1e-5)


def test_e5_is_centred_and_its_unrelated_texts_land_near_zero(e5):
    assert e5.calibration_cosine > CENTRE_ABOVE
    assert e5.centre is not None
    question = e5.embed(["Who is the CEO of the company?"], 1, "query")[0][0]
    answer, unrelated = e5.embed(["The CEO is Bob Stone.", "I baked bread with my kids."], 2)[0]
    assert np.linalg.norm(answer) == pytest.approx(1.0, abs=1e-5)
    assert float(question @ answer) > 0.3
    assert float(question @ unrelated) < 0.1


def test_all_minilm_is_not_centred_and_has_no_prompts():
    minilm = Embedder(resolve_model_files("all-MiniLM-L6-v2"), CPU)
    assert minilm.calibration_cosine < CENTRE_ABOVE
    assert minilm.centre is None
    text = ["The cat sat on the mat."]
    np.testing.assert_array_equal(minilm.embed(text, 1, "query")[0], minilm.embed(text, 1)[0])


def test_a_directorys_prompts_come_from_its_sentence_transformers_config(tmp_path):
    built_in = resolve_model_files("e5-small-v2")
    folder = tmp_path / "my-e5"
    folder.mkdir()
    (folder / "model.onnx").symlink_to(built_in.onnx_file)
    (folder / "tokenizer.json").symlink_to(built_in.tokenizer_file)
    prompts = {"prompts": {"query": "query: ", "passage": "passage: "}}
    (folder / "config_sentence_transformers.json").write_text(json.dumps(prompts))
    files = resolve_model_files(str(folder))
    assert (files.query_prefix, files.document_prefix) == ("query: ", "passage: ")
    (folder / "config_sentence_transformers.json").write_text(json.dumps({"prompts": {"document": "d: "}}))
    files = resolve_model_files(str(folder))
    assert (files.query_prefix, files.document_prefix) == ("", "d: ")


def test_e5_runs_one_text_at_a_time_so_a_vector_never_depends_on_its_batch_mates(e5):
    assert not e5.batch_independent
    texts = ["The cat sat on the mat.", "Stocks fell sharply on Monday after the news.", "Hi"]
    vectors, _, runs = e5.embed(texts, 8)
    assert runs == 3
    for text, vector in zip(texts, vectors, strict=True):
        np.testing.assert_allclose(e5.embed([text], 1)[0][0], vector, atol=1e-6)


def test_all_minilm_keeps_its_batches():
    minilm = Embedder(resolve_model_files("all-MiniLM-L6-v2"), CPU)
    assert minilm.batch_independent
    assert minilm.embed(["one", "two", "three"], 8)[2] == 1
