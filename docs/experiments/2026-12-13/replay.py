"""The 2026-12-01 replay sweep (``docs/experiments/2026-12-01/replay.py``) on the settings' embedder (minilm+mpnet by
default); the 2026-12-01 one builds MiniLM libraries, as its logged figures were made.

Usage: SEEK_HOME=... python docs/experiments/2026-12-13/replay.py DATASETS '[{"floor": 0.5}, ...]' [--kinds]
"""
import importlib.util
from pathlib import Path

from core.settings import get_settings

_spec = importlib.util.spec_from_file_location("replay_20261201", Path(__file__).parents[1] / "2026-12-01" / "replay.py")
_replay = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_replay)

if __name__ == "__main__":
    _replay.main(get_settings().embedder)
