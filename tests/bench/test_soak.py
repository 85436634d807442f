from bench.soak import _store_check, soak
from slidesearch.model import Slide
from slidesearch.store import Store


class TestSoak:
    def test_a_tiny_soak_with_kills_loses_nothing_and_answers_every_search(self):
        figures = soak(rounds=3, requests=12, clients=2, max_seconds=400, decks=4, kill_share=1.0, pause=0.05,
                       kill_window=(0.2, 0.8))  # before any ingest can finish: python alone starts slower
        assert figures["kills"] >= 1 and figures["rounds_done"] == 3
        assert figures["requests_sent"] == 12 and figures["requests_answered"] == 12 and figures["errors"] == {}
        assert set(figures["worst"].values()) == {0}, figures["worst"]
        assert figures["ingest_failures"] == 0

    def test_the_store_check_finds_lost_stale_and_half_written_slides(self, tmp_path):
        store = Store(tmp_path / "library.db")
        store.replace_source("a.jsonl", "jsonl", "h", [Slide(slide_id="a1", deck_id="d"), Slide(slide_id="a2", deck_id="d")])
        store.db.execute("DELETE FROM slides WHERE slide_id = 'a2'")
        store.close()
        check = _store_check(tmp_path / "library.db", {"a2", "b1"})
        assert (check["lost"], check["stale"], check["half_written_sources"]) == (2, 1, 1)
