"""A model whose ONNX graph pools by itself (a `sentence_embedding` output, as sentence-transformers
exports have) is used as it pools, and a graph without token_type_ids is fed without them.

The graph is built here: token vectors are [token id, 1000]; its own pooling takes the maximum over
the tokens, so its output ([largest id, 1000]) differs from what mean pooling would give.
"""

import numpy as np
import onnx
from onnx import TensorProto, helper

from cairn_model_server.embedder import Embedder
from cairn_model_server.model_files import resolve_model_files


def build_graph(path):
    nodes = [
        helper.make_node("Cast", ["input_ids"], ["ids"], to=TensorProto.FLOAT),
        helper.make_node("Constant", [], ["zero"], value_float=0.0),
        helper.make_node("Constant", [], ["thousand"], value_float=1000.0),
        helper.make_node("Mul", ["ids", "zero"], ["zeros"]),
        helper.make_node("Add", ["zeros", "thousand"], ["thousands"]),
        helper.make_node(
            "Constant", [], ["last_axis"], value=helper.make_tensor("axis", TensorProto.INT64, [1], [2])
        ),
        helper.make_node("Unsqueeze", ["ids", "last_axis"], ["ids_column"]),
        helper.make_node("Unsqueeze", ["thousands", "last_axis"], ["thousands_column"]),
        helper.make_node("Concat", ["ids_column", "thousands_column"], ["token_embeddings"], axis=2),
        helper.make_node("ReduceMax", ["token_embeddings"], ["sentence_embedding"], axes=[1], keepdims=0),
    ]
    graph = helper.make_graph(
        nodes,
        "pooled",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "sequence"]),
        ],
        [
            helper.make_tensor_value_info("token_embeddings", TensorProto.FLOAT, ["batch", "sequence", 2]),
            helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", 2]),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))


def test_a_graph_with_its_own_pooling_is_used_as_it_pools(tmp_path):
    folder = tmp_path / "self-pooling"
    folder.mkdir()
    build_graph(folder / "model.onnx")
    (folder / "tokenizer.json").symlink_to(resolve_model_files("all-MiniLM-L6-v2").tokenizer_file)
    embedder = Embedder(resolve_model_files(str(folder)), ("CPUExecutionProvider",))
    assert embedder.dimensions == 2
    # Every vector of this graph points nearly the same way, so the server centres them
    # (embedder.py); the pooling is what is checked here, so the vectors are read uncentred.
    assert embedder.centre is not None
    embedder.centre = None

    text = "zebra apple"
    ids = embedder.tokenizer.encode(text).ids
    expected = np.array([max(ids), 1000.0]) / np.hypot(max(ids), 1000.0)
    mean_pooled = np.array([np.mean(ids), 1000.0]) / np.hypot(np.mean(ids), 1000.0)
    vectors, _, _ = embedder.embed([text, "a"], 2)
    np.testing.assert_allclose(vectors[0], expected, atol=1e-6)
    assert not np.allclose(vectors[0], mean_pooled, atol=1e-2)
