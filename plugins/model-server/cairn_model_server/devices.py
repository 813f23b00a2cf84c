"""Which ONNX Runtime execution providers to run on, from SVC_MODEL_DEVICE and what the machine has.

A pure function of its inputs so every branch is testable on a CPU-only machine.
"""

from dataclasses import dataclass

DEVICES = ("auto", "cpu", "cuda", "mps")

# The ONNX Runtime provider that stands for each device Cairn names.
PROVIDER_FOR_DEVICE = {
    "cuda": "CUDAExecutionProvider",
    "mps": "CoreMLExecutionProvider",
    "cpu": "CPUExecutionProvider",
}


class DeviceUnavailableError(Exception):
    """An explicitly requested device that this machine's ONNX Runtime cannot use."""


@dataclass(frozen=True)
class DeviceChoice:
    device: str
    # Providers in preference order; the CPU stays last so an operator the accelerator
    # does not support still runs (ONNX Runtime assigns such nodes to the next provider).
    providers: tuple[str, ...]


def choose_device(requested: str, available_providers: list[str]) -> DeviceChoice:
    """auto: CUDA, then Apple silicon (Core ML), then the CPU. An explicit device must be present."""
    if requested not in DEVICES:
        raise DeviceUnavailableError(
            f"SVC_MODEL_DEVICE must be one of {', '.join(DEVICES)}, not {requested!r}"
        )
    if requested == "auto":
        for device in ("cuda", "mps"):
            if PROVIDER_FOR_DEVICE[device] in available_providers:
                return _choice(device)
        return _choice("cpu")
    provider = PROVIDER_FOR_DEVICE[requested]
    if requested != "cpu" and provider not in available_providers:
        raise DeviceUnavailableError(
            f"SVC_MODEL_DEVICE={requested} needs ONNX Runtime's {provider}, but this installation "
            f"offers only {', '.join(available_providers) or 'none'} "
            "(for CUDA install onnxruntime-gpu; Core ML comes with onnxruntime on macOS)"
        )
    return _choice(requested)


def _choice(device: str) -> DeviceChoice:
    if device == "cpu":
        return DeviceChoice("cpu", ("CPUExecutionProvider",))
    return DeviceChoice(device, (PROVIDER_FOR_DEVICE[device], "CPUExecutionProvider"))
