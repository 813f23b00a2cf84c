"""Reading SVC_ settings: defaults, values, and refusals of values that cannot be used."""

import pytest

from cairn_model_server import settings as settings_module
from cairn_model_server.settings import SettingsError, read_settings


def test_defaults():
    settings = read_settings({})
    assert settings.model == "e5-small-v2"
    assert settings.device == "auto"
    assert settings.eager_load is False
    assert settings.max_batch_size == 128
    assert settings.api_key is None


@pytest.mark.parametrize(("cores", "threads"), [(1, 1), (2, 1), (3, 1), (8, 4)])
def test_a_model_run_takes_half_the_cores_by_default(monkeypatch, cores, threads):
    monkeypatch.setattr(settings_module.os, "sched_getaffinity", lambda _pid: set(range(cores)))
    assert read_settings({}).threads == threads
    assert read_settings({"SVC_MODEL_THREADS": "3"}).threads == 3


def test_values_are_read():
    settings = read_settings(
        {
            "SVC_MODEL_EMBEDDING_MODEL": "/models/bge",
            "SVC_MODEL_DEVICE": "CPU",
            "SVC_EAGER_LOAD": "true",
            "SVC_MODEL_MAX_BATCH_SIZE": "16",
            "SVC_MODEL_API_KEY": "secret",
            "SVC_MODEL_THREADS": "1",
        }
    )
    assert (settings.model, settings.device, settings.eager_load) == ("/models/bge", "cpu", True)
    assert (settings.max_batch_size, settings.api_key, settings.threads) == (16, "secret", 1)


@pytest.mark.parametrize(
    "environment",
    [
        {"SVC_MODEL_MAX_BATCH_SIZE": "0"},
        {"SVC_MODEL_MAX_BATCH_SIZE": "ten"},
        {"SVC_EAGER_LOAD": "yes please"},
    ],
)
def test_unusable_values_are_refused(environment):
    with pytest.raises(SettingsError):
        read_settings(environment)
