import json
import os

import numpy as np
import pytest

from slidesearch.generator import generate_library
from slidesearch.index import build_index, default_index_path
from slidesearch.ingest import ingest_path
from slidesearch.library import Library
from slidesearch.store import Store


def _store(tmp_path, n: int) -> Store:
    generate_library(n, 3, tmp_path / "gen")
    s = Store(tmp_path / "library.db")
    ingest_path(tmp_path / "gen", s)
    return s


@pytest.fixture
def store(tmp_path):
    s = _store(tmp_path, 400)
    yield s
    s.close()


class TestBuildIndex:
    def test_round_trip_under_seek_home(self, store, tmp_path):
        stages = []
        report = build_index(store, embedder="fast", progress=lambda stage, done, total: stages.append(stage))
        assert report.n_slides == 400 and report.n_master == scaled_master(400)
        assert default_index_path().exists() and report.path == str(default_index_path())
        lib = Library.open()
        assert lib.n == 400 and lib.embedder_name == "fast"
        assert np.allclose(np.linalg.norm(lib.vectors[:5], axis=1), 1.0, atol=1e-4)
        row = lib.id_to_row[lib.ids[7]]
        assert lib.slide(row).slide_id == lib.ids[7]
        assert {"load", "embed", "bm25", "mine", "clusters", "save"} <= set(stages)
        first = json.loads((tmp_path / "gen" / "slides.jsonl").read_text().splitlines()[0])
        assert lib.titles[lib.id_to_row[first["slide_id"]]] == first["title"]

    def test_reindexing_embeds_only_what_changed(self, store):
        build_index(store, embedder="fast")
        again = build_index(store, embedder="fast")
        assert again.embedded == 0 and again.embed_cache_hits > 0

    def test_a_failed_build_keeps_the_previous_index_and_leaves_no_debris(self, store, monkeypatch):
        build_index(store, embedder="fast")
        before = Library.open().ids

        def broken(self, directory):
            directory.mkdir(parents=True)
            raise OSError("disk full")

        monkeypatch.setattr(Library, "save", broken)
        with pytest.raises(OSError, match="disk full"):
            build_index(store, embedder="fast")
        assert Library.open().ids == before
        hidden = [p.name for p in default_index_path().parent.iterdir() if p.name.startswith(".")]
        assert hidden == [os.readlink(default_index_path())]  # only the live version the link points at

    @pytest.mark.slow
    def test_default_embedder_builds_a_small_index(self, tmp_path):
        store = _store(tmp_path, 60)
        report = build_index(store)
        store.close()
        lib = Library.open()
        assert report.embedder == "minilm" and lib.vectors.shape == (60, 384)
        assert np.allclose(np.linalg.norm(lib.vectors, axis=1), 1.0, atol=1e-4)


def scaled_master(n: int) -> int:
    from slidesearch.generator.world import MASTER_ROWS, scaled

    return scaled(MASTER_ROWS, n)
