"""Request validation, batch planning and dimension fitting: the pure parts of /v1/embeddings."""

import numpy as np
import pytest

from cairn_model_server.requests import (
    InvalidRequestError,
    fit_dimensions,
    parse_embedding_request,
    plan_batches,
)


def parse(body):
    return parse_embedding_request(body, max_inputs=3, max_input_characters=10)


def test_a_string_input_is_one_item_and_defaults_are_filled_in():
    parsed = parse({"input": "hello", "model": "m"})
    assert parsed.inputs == ["hello"]
    assert parsed.model == "m"
    assert parsed.dimensions is None
    assert parsed.encoding_format == "float"
    assert parsed.input_type == "document"
    assert parse({"input": "hello", "input_type": "query"}).input_type == "query"


@pytest.mark.parametrize(
    "body, code",
    [
        ([], "invalid_input"),
        ({}, "invalid_input"),
        ({"input": []}, "invalid_input"),
        ({"input": ["ok", 3]}, "invalid_input"),
        ({"input": [["nested"]]}, "invalid_input"),
        ({"input": ["ok", "  "]}, "invalid_input"),
        ({"input": ["a", "b", "c", "d"]}, "too_many_inputs"),
        ({"input": "x" * 11}, "input_too_long"),
        ({"input": "ok", "dimensions": 0}, "invalid_input"),
        ({"input": "ok", "dimensions": "8"}, "invalid_input"),
        ({"input": "ok", "dimensions": True}, "invalid_input"),
        ({"input": "ok", "model": 7}, "invalid_input"),
        ({"input": "ok", "encoding_format": "int8"}, "invalid_input"),
        ({"input": "ok", "input_type": "passage"}, "invalid_input"),
        ({"input": "ok", "input_type": 1}, "invalid_input"),
        ({"input": "ok", "input_type": ""}, "invalid_input"),
    ],
)
def test_bad_requests_are_refused_with_a_reason(body, code):
    with pytest.raises(InvalidRequestError) as refused:
        parse(body)
    assert refused.value.code == code


def test_batches_hold_at_most_the_maximum_and_cover_every_position_once():
    batches = plan_batches([10] * 5, 2)
    assert [len(batch) for batch in batches] == [2, 2, 1]
    assert sorted(position for batch in batches for position in batch) == [0, 1, 2, 3, 4]


def test_batches_take_inputs_shortest_first():
    assert plan_batches([11, 10, 12, 10, 11], 2) == [[1, 3], [0, 4], [2]]


def test_a_batch_closes_before_padding_would_exceed_the_allowance():
    # Ten inputs of 10 tokens and two of 40: one batch of all twelve would be 480 padded tokens
    # for 180 real ones; the long inputs run on their own.
    assert plan_batches([10] * 10 + [40, 40], 128) == [list(range(10)), [10, 11]]
    # Within the allowance lengths share a batch (5 x 12 = 60 <= 1.25 x 56).
    assert plan_batches([11, 12, 11, 10, 12], 128) == [[3, 0, 2, 1, 4]]


def test_smaller_dimensions_truncate_and_renormalise():
    vectors = np.array([[0.6, 0.0, 0.8], [0.0, 0.6, 0.8]], dtype=np.float32)
    fitted = fit_dimensions(vectors, 2)
    assert fitted.shape == (2, 2)
    np.testing.assert_allclose(fitted, [[1.0, 0.0], [0.0, 1.0]], atol=1e-6)


def test_native_or_no_dimensions_leave_vectors_alone_and_larger_is_refused():
    vectors = np.eye(3, dtype=np.float32)
    assert fit_dimensions(vectors, None) is vectors
    assert fit_dimensions(vectors, 3) is vectors
    with pytest.raises(InvalidRequestError, match="larger than the model's 3"):
        fit_dimensions(vectors, 4)
