import json

import pytest

import bench.slides_bench as slides_bench
from bench.slides_bench import TimedEmbedder, build_phase, query_text, select_queries


def rows(kinds):
    return [{"query_id": f"q{i}", "kind": kind, "query": f"{kind} {i}"} for i, kind in enumerate(kinds)]


class TestSelectQueries:
    def test_keeps_every_query_when_fewer_than_the_limit(self):
        assert [r["query_id"] for r in select_queries(rows(["topic", "exclusion"]), 10)] == ["q0", "q1"]

    def test_an_evenly_spaced_subset_keeps_the_mix_of_kinds(self):
        kinds = ["topic"] * 30 + ["exclusion"] * 10 + ["multi_part"] * 10
        picked = select_queries(rows(kinds), 10)
        assert len(picked) == 10
        assert [r["kind"] for r in picked].count("topic") == 6
        assert {r["kind"] for r in picked} == {"topic", "exclusion", "multi_part"}

    def test_the_same_query_twice_is_timed_once(self):
        twice = [{"query_id": "a", "kind": "topic", "query": ["x", "y"]},
                 {"query_id": "b", "kind": "topic", "query": ["x", "y"]}]
        assert [r["query_id"] for r in select_queries(twice, 5)] == ["a"]


class TestQueryText:
    def test_angles_are_joined_for_single_string_baselines(self):
        assert query_text(["data lake", "payment terms"]) == "data lake payment terms"
        assert query_text("data lake") == "data lake"


class TestTimedEmbedder:
    def test_adds_up_texts_and_time_and_returns_the_inner_vectors(self):
        class Inner:
            name, dim = "inner", 2

            def encode(self, texts, batch_size=64):
                return [[1.0, 0.0]] * len(texts)

        timed = TimedEmbedder(Inner())
        assert timed.encode(["a", "b"]) == [[1.0, 0.0]] * 2
        timed.encode(["c"])
        assert timed.texts == 3
        assert timed.seconds >= 0.0
        assert (timed.name, timed.dim) == ("inner", 2)


class TestBuildPhase:
    def test_second_build_is_reported_from_the_cache(self):
        first = build_phase(150)
        assert first["cached"] is False
        assert first["slides"] == 150
        assert first["embed_slides_per_s"] > 0 and first["index_build_slides_per_s"] > 0
        again = build_phase(150)
        assert again["cached"] is True
        assert again["built_at"] == first["built_at"]

    def test_a_cached_build_of_another_schema_version_is_rebuilt(self):
        build_phase(150)
        record = slides_bench.cache_folder(150) / "build.json"
        stored = json.loads(record.read_text())
        record.write_text(json.dumps({**stored, "schema_version": -1}))
        assert build_phase(150)["cached"] is False


@pytest.mark.integration
class TestBenchSlidesQuick:
    def test_a_tiny_size_gives_latency_baselines_memory_breakdown_and_plots_and_a_failed_size_is_named(self, tmp_path, monkeypatch):
        monkeypatch.setattr(slides_bench, "QUICK_SIZES", (0, 150))
        monkeypatch.setattr(slides_bench, "QUICK_MAX_QUERIES", 4)
        monkeypatch.setattr(slides_bench, "DEFAULT_EMBEDDER", "fast")
        out = slides_bench.bench_slides(quick=True, out_dir=tmp_path)
        assert list(out["sizes"]) == ["150"]
        assert "at least one slide" in out["errors"]["0"]
        assert "0 slides not measured" in out["headline"]
        for figures in out["sizes"].values():
            assert figures["queries"] == 4
            for method in ("search_v2", "bruteforce_numpy", "bm25_only"):
                assert figures[method]["n"] == 4 and figures[method]["median_ms"] > 0
            assert figures["peak_rss_mb"] > 0 and figures["build"]["peak_rss_mb"] > 0
            assert figures["llm"] == ["offline"]
        assert out["breakdown_size"] == 150
        assert out["one_thread_blas"]["slides"] == 150 and out["one_thread_blas"]["search_v2"]["n"] == 4
        slowest = out["sizes"]["150"]["slowest_stage"]
        assert slowest in out["sizes"]["150"]["stages"]
        assert any("slowest stage" in key and slowest in value for key, value in out["headline"].items())
        assert out["plots"] == ["slides_latency.png", "slides_indexing.png"]
        for name in out["plots"]:
            assert (tmp_path / name).stat().st_size > 2_000


class TestOwnPeakRss:
    def test_a_small_child_of_a_large_parent_reports_its_own_peak(self):
        import subprocess
        import sys

        ballast = b"\x01" * (300 * 1024 * 1024)  # the parent holds 300 MiB (touched) when it starts the child
        code = "from bench.slides_bench import own_peak_rss_mb; print(own_peak_rss_mb())"
        child = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
        assert len(ballast) and child < 200
