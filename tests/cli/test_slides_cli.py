import json

from pptx import Presentation
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()


def _run(*args: str):
    return runner.invoke(app, ["slides", *args])


def _said(result) -> str:
    """The output with rich's line wrapping undone."""
    return " ".join(result.output.split())


def _deck(path, title: str) -> None:
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[1])
    slide.shapes.title.text = title
    slide.placeholders[1].text_frame.text = "Real-time transaction scoring with a narwhal model"
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(str(path))


class TestGenerateIngestIndexStats:
    def test_generated_library_goes_in_and_stats_count_it(self, tmp_path):
        out = tmp_path / "gen"
        result = _run("generate", "--slides", "300", "--seed", "4", "--out", str(out), "--json")
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["slides"] == 300
        assert {p.name for p in out.iterdir()} >= {
            "slides.jsonl",
            "master.jsonl",
            "queries.jsonl",
            "manifest.json",
        }

        result = _run("ingest", str(out), "--embedder", "fast", "--json")
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
        assert report["slides_written"] == 300 and report["master_rows_written"] > 0

        stats = json.loads(_run("stats", "--json").stdout)
        assert stats["slides"] == 300 and stats["embedder"] == "fast"
        assert sum(stats["by_section"].values()) == 300

        again = _run("ingest", str(out), "--embedder", "fast", "--json")
        assert json.loads(again.stdout)["files_unchanged"] == 2
        assert "indexed" not in _said(again)

    def test_pptx_folder_with_a_corrupt_file(self, tmp_path):
        _deck(tmp_path / "decks" / "DAAIS" / "Collateral" / "fraud.pptx", "Fraud detection")
        (tmp_path / "decks" / "broken.pptx").write_bytes(b"not a pptx")
        result = _run("ingest", str(tmp_path / "decks"), "--embedder", "fast")
        assert result.exit_code == 1, result.output  # the rest is ingested, and the exit code says a file failed
        assert "1 ingested" in _said(result) and "1 failed" in _said(result)
        assert "broken.pptx: not a PowerPoint file" in _said(result) and "PackageNotFoundError" not in _said(result)
        stats = json.loads(_run("stats", "--json").stdout)
        assert stats["slides"] == 1 and stats["by_universe"] == {"DAAIS": 1}

    def test_slidevqa_dataset(self, shared_data):
        result = _run("ingest", "--dataset", "slidevqa", "--no-index", "--json")
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["slides_written"] == 1284


class TestIngestSaysWhatHappened:
    def test_exit_code_is_1_when_every_file_failed(self, tmp_path):
        (tmp_path / "decks").mkdir()
        (tmp_path / "decks" / "a.pptx").write_text("a text file named .pptx")
        (tmp_path / "decks" / "b.pptx").write_bytes(b"PK\x03\x04 a zip cut short")
        result = _run("ingest", str(tmp_path / "decks"), "--embedder", "fast")
        assert result.exit_code == 1
        said = _said(result)
        assert "a.pptx: not a PowerPoint file" in said and "b.pptx: a damaged (corrupt) PowerPoint file" in said

    def test_files_that_are_not_slides_are_named_without_failing(self, tmp_path):
        _deck(tmp_path / "decks" / "DAAIS" / "fraud.pptx", "Fraud detection")
        (tmp_path / "decks" / "notes.pdf").write_bytes(b"%PDF-1.4")
        (tmp_path / "decks" / "old.ppt").write_bytes(b"\xd0\xcf\x11\xe0 legacy")
        (tmp_path / "decks" / "notes.txt").write_text("minutes")
        result = _run("ingest", str(tmp_path / "decks"), "--no-reindex", "--json")
        report = json.loads(result.stdout)
        # A .pdf and a .ppt are decks now (PDF text, LibreOffice conversion); these two are damaged, so they fail.
        assert result.exit_code == 1 and sorted(f["path"].rsplit("/", 1)[-1] for f in report["failures"]) == [
            "notes.pdf", "old.ppt"]
        assert [(f["path"].rsplit("/", 1)[-1], f["error"]) for f in report["skipped"]] == [
            ("notes.txt", "not slides (a .txt file; seek reads .pptx, .pdf, .ppt, .pps, .odp, .key and .jsonl)")]

    def test_universe_from_picks_the_rule_and_a_new_rule_re_reads_unchanged_files(self, tmp_path):
        _deck(tmp_path / "decks" / "Proposals" / "fraud.pptx", "Fraud detection")
        for rule, expected in ((None, "Proposals"), ("none", "Library"), ("Sales", "Sales"), ("top-folder", "Proposals")):
            extra = ["--universe-from", rule] if rule else []
            assert _run("ingest", str(tmp_path / "decks"), *extra, "--embedder", "fast").exit_code == 0
            assert json.loads(_run("stats", "--json").stdout)["by_universe"] == {expected: 1}, rule
        both = _run("ingest", str(tmp_path / "decks"), "--universe", "A", "--universe-from", "none")
        assert both.exit_code == 1 and "not both" in _said(both)

    def test_no_reindex_leaves_a_stale_index_that_stats_search_and_doctor_name(self, tmp_path):
        _deck(tmp_path / "decks" / "DAAIS" / "fraud.pptx", "Fraud detection")
        assert _run("ingest", str(tmp_path / "decks"), "--embedder", "fast").exit_code == 0
        assert json.loads(_run("stats", "--json").stdout)["freshness"]["status"] == "fresh"
        _deck(tmp_path / "decks" / "DAAIS" / "pricing.pptx", "Pricing")
        ingest = _run("ingest", str(tmp_path / "decks"), "--no-reindex")
        assert ingest.exit_code == 0 and "the index was not rebuilt" in _said(ingest)
        stats = _run("stats")
        assert "the index is out of date: 1 added file(s)" in _said(stats)
        assert json.loads(_run("stats", "--json").stdout)["freshness"]["added"] == 1
        assert "the index is out of date" in _said(_run("search", "fraud"))
        doctor = runner.invoke(app, ["doctor", "--no-embedder", "--json"])
        assert json.loads(doctor.stdout)["index"]["freshness"] == "stale"
        assert _run("index", "--embedder", "fast").exit_code == 0
        assert "out of date" not in _said(_run("search", "fraud"))

    def test_the_old_no_index_switch_still_works(self, tmp_path):
        _deck(tmp_path / "decks" / "DAAIS" / "fraud.pptx", "Fraud detection")
        result = _run("ingest", str(tmp_path / "decks"), "--no-index")
        assert result.exit_code == 0 and "indexed" not in _said(result)


class TestErrors:
    def test_stats_without_an_index_says_how_to_build_one(self):
        result = _run("stats")
        assert result.exit_code == 1 and "seek slides index" in _said(result)

    def test_index_on_an_empty_library_is_an_error(self):
        result = _run("index", "--embedder", "fast")
        assert result.exit_code == 1 and "empty" in _said(result)

    def test_unknown_embedder_lists_the_valid_ones(self):
        result = _run("index", "--embedder", "bogus")
        assert result.exit_code == 1 and "minilm" in _said(result)

    def test_ingest_needs_something_to_ingest(self):
        result = _run("ingest")
        assert result.exit_code == 1 and "--dataset" in _said(result)

    def test_missing_path_is_reported(self, tmp_path):
        result = _run("ingest", str(tmp_path / "nope"))
        assert result.exit_code == 1 and "does not exist" in _said(result)


def test_a_progress_bar_shows_no_rate_for_a_stage_done_at_once(monkeypatch):
    import io
    import time

    from rich.console import Console

    import cli.slides as slides_cli

    out = io.StringIO()
    monkeypatch.setattr(slides_cli, "err_console", Console(file=out, width=120, force_terminal=False))
    with slides_cli._progress_bars() as progress:
        progress("instant", 1500, 1500)
        progress("slow", 0, 10)
        time.sleep(slides_cli.MIN_RATE_SECONDS * 2)
        progress("slow", 10, 10)
    lines = out.getvalue().splitlines()
    assert not any("/s" in line for line in lines if "instant" in line)
    assert any("/s" in line for line in lines if "slow" in line)


class TestIngestSafety:
    def test_paths_ids_and_names_with_markup_are_printed_as_written(self, tmp_path, monkeypatch):
        home = tmp_path / "ho[/]me"
        monkeypatch.setenv("SEEK_HOME", str(home))
        tree = tmp_path / "tree"
        (tree / "a[").mkdir(parents=True)
        (tree / "a[" / "]b.jsonl").write_text(json.dumps(
            {"slide_id": "x[/]1", "deck_id": "d[old]", "title": "t [/]", "text": "hello", "universe": "[old]"}) + "\n")
        (tree / "c[old].pptx").write_bytes(b"PK\x03\x04 not really")
        result = _run("ingest", str(tree), "--embedder", "fast")
        assert result.exit_code == 1, result.output  # the corrupt deck fails; nothing crashes
        said = _said(result)
        unwrapped = "".join(result.output.split())
        assert "indexed1slides" in unwrapped and "ho[/]me/slides/index" in unwrapped  # printed after the index
        assert "failed c[old].pptx:" in said and "1 ingested" in said
        stats = _run("stats")
        assert stats.exit_code == 0 and "[old]" in _said(stats)

    def test_help_documents_every_master_column_the_reader_knows(self):
        from cli.slides import MASTER_COLUMNS
        from slidesearch.ingest import master_column_help

        assert master_column_help() == MASTER_COLUMNS
        from slidesearch.ingest import MAX_SLIDE_TEXT_CHARS

        said = _said(_run("ingest", "--help"))
        assert "client name" in said and f"{MAX_SLIDE_TEXT_CHARS:,} characters" in said

    def test_a_second_ingest_of_one_home_waits_for_the_first_and_says_so(self, tmp_path):
        import os
        import subprocess
        import sys
        import threading
        from pathlib import Path

        from slidesearch.store import Store, writer_lock

        tree = tmp_path / "tree"
        tree.mkdir()
        (tree / "s.jsonl").write_text(json.dumps({"slide_id": "a", "deck_id": "d", "text": "hello"}) + "\n")
        repo = Path(__file__).resolve().parents[2]
        env = {**os.environ, "PYTHONPATH": str(repo), "COLUMNS": "300"}
        with writer_lock():  # this test is the first writer
            child = subprocess.Popen([sys.executable, "-m", "cli.main", "slides", "ingest", str(tree), "--no-reindex"],
                                     cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            watchdog = threading.Timer(120, child.kill)
            watchdog.start()
            said = child.stderr.readline()  # the child's first word, or "" when it finished without waiting
            store = Store()
            written = store.counts()["slides"]
            store.close()
            assert "waiting" in said and f"pid {os.getpid()}" in said, said
            assert written == 0 and child.poll() is None
        out, err = child.communicate(timeout=120)
        watchdog.cancel()
        assert child.returncode == 0, err
        store = Store()
        assert store.counts()["slides"] == 1
        store.close()

    def test_a_server_still_answering_from_a_replaced_index_says_so(self, tmp_path):
        from slidesearch.freshness import served_freshness
        from slidesearch.library import Library

        (tmp_path / "s.jsonl").write_text(json.dumps({"slide_id": "a", "deck_id": "d", "text": "hello"}) + "\n")
        assert _run("ingest", str(tmp_path / "s.jsonl"), "--embedder", "fast").exit_code == 0
        served = Library.open().path
        assert served_freshness(served).status == "fresh"
        (tmp_path / "s.jsonl").write_text(json.dumps({"slide_id": "b", "deck_id": "d", "text": "hello"}) + "\n")
        assert _run("ingest", str(tmp_path / "s.jsonl"), "--embedder", "fast").exit_code == 0
        freshness = served_freshness(served)
        assert freshness.status == "stale" and "restart" in freshness.message
