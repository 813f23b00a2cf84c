"""The package as it would be published: the wheel holds the typing marker and the memory tool specs,
its metadata says cairn-client 0.1.0 with httpx, and the version has one source."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import cairn

SDK = Path(__file__).resolve().parents[1]


def test_the_wheel_is_complete(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(SDK),
        ],
        check=True,
    )
    (wheel,) = tmp_path.glob("cairn_client-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(next(name for name in names if name.endswith(".dist-info/METADATA"))).decode()
    assert {
        "cairn/py.typed",
        "cairn/memory_tool_specs.json",
        "cairn/agent_tools.py",
        "cairn/tool_specs.json",
        "cairn/toolkits/__init__.py",
        "cairn/client.py",
    } <= names
    assert not any(name.startswith("tests/") for name in names)
    assert "Name: cairn-client\n" in metadata
    assert f"Version: {cairn.__version__}\n" in metadata
    assert "Requires-Dist: httpx" in metadata and "Requires-Python: >=3.10" in metadata


def test_the_version_is_written_once() -> None:
    assert cairn.__version__ == "0.1.0"
    pyproject = (SDK / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject and 'path = "src/cairn/_version.py"' in pyproject
