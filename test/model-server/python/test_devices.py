"""The device rules of SVC_MODEL_DEVICE, with ONNX Runtime's provider list as plain input."""

import pytest

from cairn_model_server.devices import DeviceUnavailableError, choose_device

CPU = ["CPUExecutionProvider"]
CUDA = ["CUDAExecutionProvider", "CPUExecutionProvider"]
APPLE = ["CoreMLExecutionProvider", "CPUExecutionProvider"]
BOTH = ["CoreMLExecutionProvider", "CUDAExecutionProvider", "CPUExecutionProvider"]


def test_auto_prefers_cuda_then_apple_silicon_then_cpu():
    assert choose_device("auto", BOTH).device == "cuda"
    assert choose_device("auto", CUDA).providers == ("CUDAExecutionProvider", "CPUExecutionProvider")
    assert choose_device("auto", APPLE).device == "mps"
    assert choose_device("auto", APPLE).providers == ("CoreMLExecutionProvider", "CPUExecutionProvider")
    assert choose_device("auto", CPU).device == "cpu"
    assert choose_device("auto", ["AzureExecutionProvider", "CPUExecutionProvider"]).device == "cpu"


def test_cpu_is_always_available_and_uses_only_the_cpu():
    assert choose_device("cpu", BOTH).providers == ("CPUExecutionProvider",)


def test_an_explicit_accelerator_that_is_present_is_used():
    assert choose_device("cuda", CUDA).device == "cuda"
    assert choose_device("mps", APPLE).device == "mps"


@pytest.mark.parametrize("device, available", [("cuda", CPU), ("cuda", APPLE), ("mps", CUDA)])
def test_an_explicit_accelerator_that_is_missing_is_a_clear_error(device, available):
    with pytest.raises(DeviceUnavailableError, match=f"SVC_MODEL_DEVICE={device} needs"):
        choose_device(device, available)


def test_an_unknown_device_name_is_refused():
    with pytest.raises(DeviceUnavailableError, match="must be one of auto, cpu, cuda, mps"):
        choose_device("tpu", CPU)
