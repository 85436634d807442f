import json

import pytest

from slidesearch.freshness import SOURCES_FILE, index_freshness
from slidesearch.generator import generate_library
from slidesearch.index import build_index
from slidesearch.ingest import ingest_path
from slidesearch.store import Store


@pytest.fixture
def built(tmp_path):
    generate_library(60, 3, tmp_path / "gen")
    store = Store(tmp_path / "library.db")
    ingest_path(tmp_path / "gen", store)
    index = tmp_path / "index"
    build_index(store, out=index, embedder="fast")
    yield store, index
    store.close()


class TestIndexFreshness:
    def test_a_new_index_is_fresh(self, built):
        _, index = built
        assert index_freshness(index).status == "fresh"

    def test_files_added_changed_and_removed_since_the_build_are_counted(self, built, tmp_path):
        store, index = built
        (key, digest), *_ = store.db.execute("SELECT source_key, content_hash FROM sources").fetchall()
        store.replace_source(key, "jsonl", digest + "-edited")
        store.replace_source(str(tmp_path / "new.jsonl"), "jsonl", "fresh-digest")
        freshness = index_freshness(index)
        assert (freshness.status, freshness.added, freshness.changed, freshness.removed) == ("stale", 1, 1, 0)
        assert "1 added, 1 changed" in freshness.message and "seek slides index" in freshness.message
        store.remove_source(key)
        assert (index_freshness(index).changed, index_freshness(index).removed) == (0, 1)

    def test_an_index_without_the_record_is_unknown_never_fresh(self, built):
        _, index = built
        (index / SOURCES_FILE).unlink()
        assert index_freshness(index).status == "unknown"

    def test_no_index_says_how_to_build_one(self, tmp_path):
        freshness = index_freshness(tmp_path / "nowhere")
        assert freshness.status == "no index" and "seek slides index" in freshness.message

    def test_the_record_names_the_store_it_was_built_from(self, built):
        store, index = built
        record = json.loads((index / SOURCES_FILE).read_text())
        assert record["store"] == str(store.path) and len(record["sources"]) == store.counts()["sources"]
