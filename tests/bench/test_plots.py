from bench.plots import indexing_loglog, latency_vs_size, sessions_bars

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def assert_png(path):
    data = path.read_bytes()
    assert data.startswith(PNG_MAGIC)
    assert len(data) > 2_000


class TestLatencyVsSize:
    def test_writes_a_png_with_every_method(self, tmp_path):
        series = {
            "engine": {"median_ms": [20.0, 80.0], "p95_ms": [30.0, 120.0]},
            "BM25 only": {"median_ms": [0.2, 0.9], "p95_ms": [0.3, 1.2]},
        }
        path = latency_vs_size([1_000, 10_000], series, tmp_path / "latency.png")
        assert path == tmp_path / "latency.png"
        assert_png(path)

    def test_leaves_no_temporary_file_behind(self, tmp_path):
        latency_vs_size([10, 100], {"a": {"median_ms": [1.0, 2.0], "p95_ms": [1.5, 3.0]}}, tmp_path / "l.png")
        assert [p.name for p in tmp_path.iterdir()] == ["l.png"]


class TestIndexingLoglog:
    def test_writes_a_png_per_phase_set(self, tmp_path):
        phases = {"generate": [0.5, 5.0], "embed": [1.0, 11.0], "build": [2.0, 25.0]}
        assert_png(indexing_loglog([1_000, 10_000], phases, tmp_path / "indexing.png"))

    def test_a_single_size_still_draws(self, tmp_path):
        assert_png(indexing_loglog([1_000], {"embed": [1.0]}, tmp_path / "one.png"))


class TestSessionsBars:
    def test_writes_run_and_build_panels(self, tmp_path):
        path = sessions_bars(["tenturns", "generic", "baseline"], [40.0, 8.0, 45.0], [7.0, 30.0, 1.0],
                             tmp_path / "nested" / "turns.png")
        assert_png(path)
