"""Makes the model server's package importable for these tests, wherever pytest is run from."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "plugins/model-server"))
