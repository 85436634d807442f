import os
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


@pytest.fixture(autouse=True)
def _isolated_seek_home(tmp_path_factory, monkeypatch):
    """Every test gets its own SEEK_HOME; no test writes to the user's data dir or reads their keys."""
    home = tmp_path_factory.mktemp("seek_home")
    monkeypatch.setenv("SEEK_HOME", str(home))
    monkeypatch.setenv("SEEK_DATA_DIR", str(SHARED_DATA))
    # OCR is most of the cost of reading real decks (minutes for the realdecks set); the tests of it turn it on.
    monkeypatch.setenv("SEEK_OCR", "off")
    # The default encoder pair (MiniLM + mpnet) embeds at about a third of MiniLM's speed; the behaviour tests
    # build hundreds of small libraries, so they read MiniLM alone. tests/core/test_mpnet.py and the tests marked
    # there cover the pair, and SEEK_EMBEDDER set by a test still wins.
    monkeypatch.setenv("SEEK_EMBEDDER", "minilm")
    for var in ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "NVIDIA_API_KEY", "SEEK_LLM",
                "SEEK_JUDGE_LLM", "TECHJAM_PHASE6_MODE", "SEEK_API_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    yield home


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.exists():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA



@pytest.fixture(scope="session")
def ray_cluster(tmp_path_factory):
    """A real two-node Ray cluster on loopback shared by the session's tests (``tests/ray_cluster.py``)."""
    from ray_cluster import running_cluster

    with running_cluster(tmp_path_factory.mktemp("ray")) as cluster:
        yield cluster
