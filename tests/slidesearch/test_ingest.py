import datetime as dt
import json
import os
from pathlib import Path

import pytest
from pptx import Presentation
from pptx.util import Inches

from slidesearch.content_type import SlideShape, classify_content_type
from slidesearch.ingest import (
    SLIDEVQA_ID,
    IngestError,
    ingest_dataset,
    ingest_master,
    ingest_path,
    read_master,
    read_pptx,
    read_slides_jsonl,
)
from slidesearch.store import Store


def make_deck(
    path: Path, title_text: str = "Fraud detection for a retail bank", created: dt.datetime | None = None
) -> Path:
    prs = Presentation()
    if created is not None:
        prs.core_properties.created = created
    first = prs.slides.add_slide(prs.slide_layouts[1])
    first.shapes.title.text = title_text
    first.placeholders[1].text_frame.text = "Challenge: card fraud losses rising 20% a year"
    para = first.placeholders[1].text_frame.add_paragraph()
    para.text = "Solution: real-time transaction scoring; Impact: $4M saved for the client"
    first.notes_slide.notes_text_frame.text = "Mention the zebrafish pilot only if asked"

    second = prs.slides.add_slide(prs.slide_layouts[5])
    second.shapes.title.text = "Model performance"
    table = second.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for r, (k, v) in enumerate([("Metric", "Value"), ("Precision", "92%"), ("Recall", "88% quokka")]):
        table.cell(r, 0).text = k
        table.cell(r, 1).text = v

    third = prs.slides.add_slide(prs.slide_layouts[6])
    group = third.shapes.add_group_shape()
    for i, word in enumerate(["Discover", "Design", "Deliver narwhal"]):
        box = group.shapes.add_textbox(Inches(1 + 2 * i), Inches(2), Inches(2), Inches(1))
        box.text_frame.text = word
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(str(path))
    return path


@pytest.fixture
def store(tmp_path) -> Store:
    s = Store(tmp_path / "library.db")
    yield s
    s.close()


def _texts(store: Store) -> dict[str, str]:
    return {s.slide_id: f"{s.title}\n{s.search_document}" for s in store.iter_slides()}


class TestReadPptx:
    def test_titles_text_frames_tables_groups_and_notes_are_extracted(self, tmp_path):
        path = make_deck(
            tmp_path / "DAAIS" / "Clients" / "Acme" / "Fraud V2.pptx", created=dt.datetime(2024, 5, 1)
        )
        deck, slides = read_pptx(path, tmp_path)
        assert [s.slide_number for s in slides] == [1, 2, 3]
        first, table, grouped = slides
        assert first.title == "Fraud detection for a retail bank"
        assert "real-time transaction scoring" in first.text
        assert "zebrafish" in first.notes and "zebrafish" not in first.text  # notes: own field
        assert "zebrafish" in first.search_document  # ... and still searched
        assert "Recall | 88% quokka" in table.text
        assert "Deliver narwhal" in grouped.text
        assert first.folder == "/DAAIS/Clients/Acme" and first.universe == "DAAIS"
        assert first.deck_date == dt.date(2024, 5, 1) and deck.deck_date == dt.date(2024, 5, 1)
        assert deck.n_slides == 3 and first.deck_name == "Fraud V2.pptx"

    def test_content_types_are_inferred(self, tmp_path):
        _, slides = read_pptx(make_deck(tmp_path / "x.pptx"), tmp_path)
        assert [s.content_type for s in slides] == ["case_study", "table", "diagram"]

    def test_deck_date_falls_back_to_mtime(self, tmp_path):
        path = make_deck(tmp_path / "x.pptx")
        prs = Presentation(str(path))
        prs.core_properties.created = dt.datetime(1970, 1, 2)
        prs.core_properties.modified = dt.datetime(1970, 1, 2)
        prs.save(str(path))
        stamp = dt.datetime(2023, 3, 4, 12, tzinfo=dt.UTC).timestamp()
        os.utime(path, (stamp, stamp))
        deck, _ = read_pptx(path, tmp_path)
        assert deck.deck_date == dt.date(2023, 3, 4)

    def test_universe_option_overrides_the_folder(self, tmp_path):
        _, slides = read_pptx(make_deck(tmp_path / "Clients" / "x.pptx"), tmp_path, universe="EdTech")
        assert {s.universe for s in slides} == {"EdTech"} and slides[0].folder == "/Clients"

    def test_password_protected_file_is_named_as_such(self, tmp_path):
        path = tmp_path / "locked.pptx"
        path.write_bytes(b"\xd0\xcf\x11\xe0" + b"\0" * 600)
        with pytest.raises(IngestError, match="password-protected"):
            read_pptx(path, tmp_path)


class TestIngestFolder:
    def test_ingested_decks_can_be_found_by_their_text(self, tmp_path, store):
        make_deck(tmp_path / "decks" / "DAAIS" / "a.pptx")
        make_deck(tmp_path / "decks" / "S&R" / "Proposals" / "b.pptx", title_text="Payment terms")
        report = ingest_path(tmp_path / "decks", store)
        assert report.files_ingested == 2 and report.slides_written == 6 and not report.failures
        texts = _texts(store)
        assert any("quokka" in t for t in texts.values())
        assert any("zebrafish" in t for t in texts.values())
        assert {s.universe for s in store.iter_slides()} == {"DAAIS", "S&R"}

    def test_corrupt_file_is_reported_and_skipped_and_the_rest_goes_on(self, tmp_path, store):
        make_deck(tmp_path / "decks" / "good.pptx")
        (tmp_path / "decks" / "broken.pptx").write_bytes(b"PK\x03\x04 this is not a real zip")
        report = ingest_path(tmp_path / "decks", store)
        assert report.files_ingested == 1 and len(report.failures) == 1
        assert report.failures[0].path.endswith("broken.pptx") and "corrupt" in report.failures[0].error
        assert store.counts()["slides"] == 3

    def test_reingest_of_an_unchanged_folder_does_no_work(self, tmp_path, store):
        make_deck(tmp_path / "decks" / "a.pptx")
        ingest_path(tmp_path / "decks", store)
        again = ingest_path(tmp_path / "decks", store)
        assert again.files_unchanged == 1 and again.files_ingested == 0 and not again.changed

    def test_a_deck_read_by_an_older_reader_is_read_again_once(self, tmp_path, store, monkeypatch):
        import slidesearch.ingest as ingest

        make_deck(tmp_path / "decks" / "a.pptx")
        monkeypatch.setattr(ingest, "DECK_READER_VERSION", ingest.DECK_READER_VERSION - 1)
        ingest_path(tmp_path / "decks", store)
        monkeypatch.undo()  # an upgrade: the same bytes, a newer reader
        upgraded = ingest_path(tmp_path / "decks", store)
        assert (upgraded.files_ingested, upgraded.files_unchanged) == (1, 0)
        assert ingest_path(tmp_path / "decks", store).files_unchanged == 1
        assert store.counts()["slides"] == 3

    def test_a_changed_deck_replaces_its_slides(self, tmp_path, store):
        path = make_deck(tmp_path / "decks" / "a.pptx")
        ingest_path(tmp_path / "decks", store)
        make_deck(path, title_text="Churn prediction for a telco")
        report = ingest_path(tmp_path / "decks", store)
        assert report.files_ingested == 1
        titles = [s.title for s in store.iter_slides()]
        assert "Churn prediction for a telco" in titles and "Fraud detection for a retail bank" not in titles
        assert store.counts()["slides"] == 3

    def test_a_deck_that_turns_corrupt_keeps_its_earlier_slides(self, tmp_path, store):
        path = make_deck(tmp_path / "decks" / "a.pptx")
        ingest_path(tmp_path / "decks", store)
        path.write_bytes(b"garbage")
        report = ingest_path(tmp_path / "decks", store)
        assert len(report.failures) == 1 and store.counts()["slides"] == 3

    def test_a_deck_deleted_from_the_folder_leaves_the_library(self, tmp_path, store):
        make_deck(tmp_path / "decks" / "a.pptx")
        gone = make_deck(tmp_path / "decks" / "b.pptx", title_text="Churn prediction")
        ingest_path(tmp_path / "decks", store)
        gone.unlink()
        report = ingest_path(tmp_path / "decks", store)
        assert report.files_removed == 1 and report.changed
        assert store.counts()["slides"] == 3
        assert "Churn prediction" not in [s.title for s in store.iter_slides()]

    def test_decks_whose_names_slug_alike_stay_apart(self, tmp_path, store):
        make_deck(tmp_path / "decks" / "Q3 plan.pptx")
        make_deck(tmp_path / "decks" / "Q3-plan.pptx")
        ingest_path(tmp_path / "decks", store)
        assert store.counts()["slides"] == 6 and store.counts()["decks"] == 2

    def test_missing_path_is_a_clear_error(self, tmp_path, store):
        with pytest.raises(IngestError, match="does not exist"):
            ingest_path(tmp_path / "nope", store)


class TestJsonlAndMaster:
    def test_jsonl_rows_are_validated_typed_and_bad_rows_reported(self, tmp_path, store):
        rows = [
            {
                "slide_id": "s1",
                "deck_id": "d1",
                "deck_name": "D1 V1.pptx",
                "folder": "/EdTech/Domain",
                "title": "Our team",
                "text": "Priya Rao, CEO and co-founder; Sam Lee, CTO; Ana Diaz, Director",
            },
            {"slide_id": "s2", "deck_id": "d1", "title": "Pricing", "text": "x", "content_type": "table"},
            {"deck_id": "d1"},
            {"slide_id": "s2", "deck_id": "d1", "title": "Pricing again"},
        ]
        path = tmp_path / "slides.jsonl"
        path.write_text("\n".join(json.dumps(r) for r in rows) + "\nnot json\n")
        slides, decks, errors = read_slides_jsonl(path)
        assert [s.content_type for s in slides] == ["team", "table"]
        assert len(decks) == 1 and decks[0].n_slides == 2
        assert len(errors) == 3 and errors[0].startswith("slides.jsonl:3") and "duplicate" in errors[1]
        report = ingest_path(path, store)
        assert report.slides_written == 2 and len(report.row_errors) == 3

    def test_master_csv_with_loose_headers(self, tmp_path, store):
        path = tmp_path / "master.csv"
        path.write_text(
            "ID,Client Name,Use Case,Title,Summary\n1,Acme Bank,Fraud,Card fraud,Saved $4M\n2,,,,\n"
        )
        rows, errors = read_master(path)
        assert rows[0].client == "Acme Bank" and rows[0].use_case == "Fraud" and rows[0].row_id == "1"
        assert len(errors) == 1
        assert ingest_master(path, store).master_rows_written == 1
        assert store.master_rows()[0].summary == "Saved $4M"

    def test_folder_master_jsonl_is_the_master_sheet_and_queries_are_ignored(self, tmp_path, store):
        (tmp_path / "lib").mkdir()
        (tmp_path / "lib" / "master.jsonl").write_text(
            json.dumps({"row_id": "m1", "title": "T", "summary": "S"}) + "\n"
        )
        (tmp_path / "lib" / "queries.jsonl").write_text(json.dumps({"query": "x"}) + "\n")
        (tmp_path / "lib" / "slides.jsonl").write_text(
            json.dumps({"slide_id": "a", "deck_id": "d", "text": "hello"}) + "\n"
        )
        report = ingest_path(tmp_path / "lib", store)
        assert report.master_rows_written == 1 and report.slides_written == 1 and not report.row_errors


class TestSlideVQA:
    def test_ids_parse_from_the_right(self):
        m = SLIDEVQA_ID.match(
            "x_95__april-08th-2015-forum-on-generic-drugs-promise-of-regulatory-science-33-3-1024.jpg"
        )
        assert m["deck"].endswith("science-33") and m["page"] == "3"

    def test_dataset_ingests_every_slide_with_its_id(self, store, shared_data):
        report = ingest_dataset("slidevqa", store, shared_data)
        assert report.slides_written == 1284 and report.decks_written == 379
        slide = next(iter(store.iter_slides()))
        assert (
            slide.slide_id.endswith("-1024.jpg") and slide.universe == "SlideVQA" and slide.slide_number >= 1
        )
        assert ingest_dataset("slidevqa", store, shared_data).files_unchanged == 1

    def test_unknown_dataset_lists_the_known_ones(self, store):
        with pytest.raises(IngestError, match="slidevqa"):
            ingest_dataset("nope", store)


class TestContentTypeClassifier:
    @pytest.mark.parametrize(
        ("shape", "expected"),
        [
            (SlideShape(title="Agenda", text="Intro\nScope"), "agenda"),
            (SlideShape(title="Thank you", text=""), "closing"),
            (SlideShape(title="Pricing", text="a | b\nc | d", n_tables=1, table_chars=11), "table"),
            (SlideShape(title="Sales", text="", n_charts=2), "dashboard"),
            (SlideShape(title="Leadership team", text="Jane"), "team"),
            (
                SlideShape(
                    title="Retail",
                    text="Challenge: churn. Solution: model. Impact: 12% uplift for the client",
                ),
                "case_study",
            ),
            (
                SlideShape(
                    title="Our delivery framework", text="Assess, build, run the analytics capability"
                ),
                "framework",
            ),
            (
                SlideShape(title="Implementation roadmap", text="Phase one then phase two of the delivery"),
                "diagram",
            ),
            (
                SlideShape(
                    title="Market view", text="We help insurers price risk with better data and models."
                ),
                "content",
            ),
        ],
    )
    def test_rules(self, shape, expected):
        assert classify_content_type(shape) == expected


def _jsonl(path: Path, ids: list[str], deck: str = "d", text: str = "hello") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"slide_id": i, "deck_id": deck, "text": text}) + "\n" for i in ids))
    return path


def _owners(store: Store) -> dict[str, str]:
    return dict(store.db.execute("SELECT slide_id, source_key FROM slides").fetchall())


class TestSourcesOwnTheirIds:
    def test_a_folder_repeating_another_folders_slide_ids_is_a_named_conflict_not_a_transfer(self, tmp_path, store):
        ids = [f"s{i}" for i in range(50)]
        first = _jsonl(tmp_path / "a" / "part.jsonl", ids)
        _jsonl(tmp_path / "b" / "part.jsonl", ids)
        ingest_path(tmp_path / "a", store)
        report = ingest_path(tmp_path / "b", store)
        assert report.files_ingested == 0 and len(report.failures) == 1
        failure = report.failures[0]
        assert failure.path == "part.jsonl" and "already belong" in failure.error and "s0" in failure.error
        assert set(_owners(store).values()) == {str(first)}
        # The refused file is not recorded: once the owner is gone, the next ingest takes it, not "unchanged".
        first.unlink()
        assert ingest_path(tmp_path / "a", store).files_removed == 1
        again = ingest_path(tmp_path / "b", store)
        assert (again.files_ingested, again.files_unchanged) == (1, 0)
        assert set(_owners(store).values()) == {str(tmp_path / "b" / "part.jsonl")} and len(_owners(store)) == 50

    def test_a_deck_id_held_by_another_file_is_a_conflict_too(self, tmp_path, store):
        _jsonl(tmp_path / "a.jsonl", ["x1"], deck="shared")
        ingest_path(tmp_path / "a.jsonl", store)
        report = ingest_path(_jsonl(tmp_path / "b.jsonl", ["y1"], deck="shared"), store)
        assert report.failures and "shared" in report.failures[0].error
        assert sorted(_owners(store)) == ["x1"]


class TestMasterSheets:
    def test_sheets_without_an_id_column_keep_every_row_of_each(self, tmp_path, store):
        a = tmp_path / "a.csv"
        b = tmp_path / "b.csv"
        a.write_text("Title,Summary\nA one,first\nA two,second\n")
        b.write_text("Title,Summary\nB one,first\nB two,second\nB three,third\n")
        for sheet in (a, b):
            assert ingest_master(sheet, store).master_rows_written > 0
        assert ingest_master(a, store).files_unchanged == 1
        titles = sorted(r.title for r in store.master_rows())
        assert titles == ["A one", "A two", "B one", "B three", "B two"]
        assert len({r.row_id for r in store.master_rows()}) == 5  # card ids stay distinct across sheets

    def test_generated_row_ids_of_two_sheets_do_not_overwrite_each_other(self, tmp_path, store):
        for name in ("one", "two"):
            (tmp_path / name).mkdir()
            (tmp_path / name / "master.jsonl").write_text(
                "".join(json.dumps({"row_id": f"M{k:04d}", "title": f"{name} {k}"}) + "\n" for k in range(1, 4)))
            ingest_path(tmp_path / name, store)
        assert len(store.master_rows()) == 6

    def test_unknown_columns_are_named_in_a_warning_and_repeated_ids_are_bad_rows(self, tmp_path, store):
        sheet = tmp_path / "m.csv"
        sheet.write_text("ID,Title,Revenue,Owner\n1,Card fraud,4M,Ann\n1,Again,5M,Bob\n")
        report = ingest_master(sheet, store)
        assert report.master_rows_written == 1
        assert any("'Revenue'" in w and "'Owner'" in w for w in report.warnings)
        assert any("duplicate row id '1'" in e for e in report.row_errors)

    def test_an_old_store_keyed_by_row_id_alone_is_migrated(self, tmp_path):
        import sqlite_utils

        db = sqlite_utils.Database(tmp_path / "old.db")
        db["master"].insert({"row_id": "1", "client": "", "use_case": "", "title": "kept", "summary": "",
                             "source_key": "/x/m.csv"}, pk="row_id")
        db.close()
        store = Store(tmp_path / "old.db")
        assert store.db["master"].pks == ["source_key", "row_id"] and store.master_rows()[0].title == "kept"
        store.close()


class TestLimitsAndSkips:
    def test_a_huge_slide_text_is_cut_and_the_cut_is_reported(self, tmp_path, store):
        from slidesearch.ingest import MAX_SLIDE_TEXT_CHARS

        path = _jsonl(tmp_path / "big.jsonl", ["big"], text="word " * 100_000)
        report = ingest_path(path, store)
        assert len(next(iter(store.iter_slides())).text) == MAX_SLIDE_TEXT_CHARS
        assert report.truncated and report.truncated[0].path == "big.jsonl" and "500,000" in report.truncated[0].error

    def test_links_hidden_files_and_loops_are_skipped_with_a_word(self, tmp_path, store):
        tree = tmp_path / "tree"
        _jsonl(tree / "Sales" / "ok.jsonl", ["ok"])
        _jsonl(tmp_path / "outside.jsonl", ["secret"])
        (tree / "linked.jsonl").symlink_to(tmp_path / "outside.jsonl")
        (tree / "Sales" / "loop").symlink_to(tree)
        _jsonl(tree / "..odd.jsonl", ["odd"])
        report = ingest_path(tree, store)
        assert sorted(_owners(store)) == ["ok"]
        skipped = {s.path: s.error for s in report.skipped}
        assert "symbolic link" in skipped["linked.jsonl"] and "symbolic link" in skipped["Sales/loop"]
        assert "hidden" in skipped["..odd.jsonl"]

    def test_a_deck_at_the_top_of_the_folder_is_in_the_root_folder_and_the_default_universe(self, tmp_path, store):
        make_deck(tmp_path / "top" / "Deck.pptx")
        ingest_path(tmp_path / "top", store)
        slide = next(iter(store.iter_slides()))
        assert (slide.folder, slide.universe) == ("/", "Library")


class TestDecksReadElsewhere:
    """``ingest_path(..., read_decks=mapper)`` (``seek slides ingest --ray``): the changed decks are read by the mapper."""

    def test_a_mapped_read_writes_what_a_local_read_writes_and_sends_only_changed_decks(self, tmp_path):
        make_deck(tmp_path / "decks" / "Sales" / "a.pptx")
        make_deck(tmp_path / "decks" / "Sales" / "b.pptx", title_text="Churn prediction for a telecom")
        (tmp_path / "decks" / "Sales" / "broken.pptx").write_bytes(b"PK\x03\x04 this is not a real zip")
        sent: list[list] = []

        def mapper(fn, items):
            sent.append([item[1].name for item in items])
            return [fn(item) for item in items]

        local, mapped = Store(tmp_path / "local.db"), Store(tmp_path / "mapped.db")
        expected = ingest_path(tmp_path / "decks", local)
        got = ingest_path(tmp_path / "decks", mapped, read_decks=mapper)
        assert sent == [["a.pptx", "b.pptx", "broken.pptx"]]
        assert ([s.model_dump() for s in mapped.iter_slides()] == [s.model_dump() for s in local.iter_slides()]
                and mapped.counts()["slides"] == 6)
        assert got.failures == expected.failures and len(got.failures) == 1  # the corrupt deck, named the same way
        make_deck(tmp_path / "decks" / "Sales" / "b.pptx", title_text="Churn prediction, second edition")
        again = ingest_path(tmp_path / "decks", mapped, read_decks=mapper)
        assert sent[-1] == ["b.pptx", "broken.pptx"] and again.files_unchanged == 1  # a.pptx is not read again


class TestRefusedFiles:
    def test_a_lock_file_is_skipped_and_a_template_or_unconvertible_deck_fails_and_none_is_read(self, tmp_path,
                                                                                                 monkeypatch):
        import slidesearch.ingest as ingest

        monkeypatch.setattr(ingest, "soffice_path", lambda: None)  # no LibreOffice: a .ppt cannot be converted
        make_deck(tmp_path / "decks" / "a.pptx")
        for name in ("~$a.pptx", "template.pot", "old.ppt"):
            (tmp_path / "decks" / name).write_bytes(b"not read")
        sent: list[str] = []

        def mapper(fn, items):
            sent.extend(item[1].name for item in items)
            return [fn(item) for item in items]

        report = ingest_path(tmp_path / "decks", Store(tmp_path / "library.db"), read_decks=mapper)
        assert sent == ["a.pptx"] and report.files_ingested == 1
        assert [(f.path, "lock file" in f.error) for f in report.skipped] == [("~$a.pptx", True)]
        assert sorted(f.path for f in report.failures) == ["old.ppt", "template.pot"]
        assert all("not a .pptx" in f.error for f in report.failures)
