import hashlib
import json
import re
from collections import Counter

import numpy as np
import pytest

from slidesearch.generator import generate_library, vocab
from slidesearch.generator.render import figure_kinds
from slidesearch.generator.world import REFERENCE_SLIDES, SPECIAL_COUNTS, TYPE_COUNTS, scaled
from slidesearch.model import Slide, canonical_deck_id, section_for

N = 8_000


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    out = tmp_path_factory.mktemp("generated")
    manifest = generate_library(N, 7, out)
    slides = [json.loads(line) for line in (out / "slides.jsonl").read_text().splitlines()]
    master = [json.loads(line) for line in (out / "master.jsonl").read_text().splitlines()]
    queries = [json.loads(line) for line in (out / "queries.jsonl").read_text().splitlines()]
    return out, manifest, slides, master, queries


def _doc(row) -> str:
    return f"{row['title']}\n{row['text']}"


class TestShape:
    def test_exactly_n_valid_slides_with_unique_ids(self, library):
        _, _, slides, _, _ = library
        assert len(slides) == N
        assert len({s["slide_id"] for s in slides}) == N
        models = [Slide.model_validate(s) for s in slides]
        assert {m.universe for m in models} == {"DAAIS", "S&R", "EdTech"}

    def test_same_seed_same_files_other_seed_other_files(self, library, tmp_path):
        out, *_ = library
        generate_library(N, 7, tmp_path / "again")
        generate_library(N, 8, tmp_path / "other")
        digest = lambda p: hashlib.sha256(p.read_bytes()).hexdigest()  # noqa: E731
        for name in ("slides.jsonl", "master.jsonl", "queries.jsonl"):
            assert digest(out / name) == digest(tmp_path / "again" / name)
        assert digest(out / "slides.jsonl") != digest(tmp_path / "other" / "slides.jsonl")

    def test_slides_read_like_slides(self, library):
        _, _, slides, _, _ = library
        assert sum(bool(s["title"]) for s in slides) == N
        assert not any("{" in _doc(s) for s in slides)
        lengths = sorted(len(_doc(s)) for s in slides)
        assert 60 < lengths[N // 2] < 600

    def test_folders_per_universe_cover_clients_collateral_proposals_and_domains(self, library):
        _, _, slides, _, _ = library
        kinds = Counter(s["folder"].split("/")[2] for s in slides)
        assert {"Clients", "Sales", "Domain"} <= set(kinds)
        folders = {s["folder"] for s in slides}
        assert any("/Sales/Collateral/Technology Capabilities" in f for f in folders)
        assert any("/Sales/Proposals/" in f for f in folders)


class TestProportions:
    def test_content_type_mix_follows_the_original(self, library):
        _, _, slides, _, _ = library
        counts = Counter(s["content_type"] for s in slides)
        for ctype, reference in TYPE_COUNTS.items():
            expected = reference * N / REFERENCE_SLIDES
            if expected >= 150:
                assert abs(counts[ctype] - expected) <= 0.3 * expected, (ctype, counts[ctype], expected)
        assert counts.most_common(1)[0][0] == "content"

    def test_carve_outs_have_their_scaled_counts(self, library):
        _, _, slides, _, _ = library
        sections = Counter(section_for(s["content_type"], s["title"], s["text"]) for s in slides)
        assert sections["Credibility & Recognition"] == scaled(SPECIAL_COUNTS["award"], N)
        assert sections["Commercial & Contract Terms"] == scaled(SPECIAL_COUNTS["commercial"], N)

    def test_cofounder_is_named_on_team_slides_only_at_the_scaled_rate(self, library):
        _, manifest, slides, _, _ = library
        named = [s for s in slides if manifest["cofounder"] in _doc(s)]
        assert len(named) == scaled(SPECIAL_COUNTS["cofounder"], N)
        assert {s["content_type"] for s in named} == {"team"}

    def test_rare_phrase_sits_on_its_scaled_count_of_slides_and_nowhere_else(self, library):
        _, _, slides, _, _ = library
        for phrase, _, count, _ in vocab.RARE_PHRASES:
            hits = [s for s in slides if phrase in _doc(s).lower()]
            assert len(hits) == scaled(count, N, floor=2), phrase

    def test_rare_clients_are_on_a_handful_of_slides_mostly_outside_case_studies(self, library):
        _, manifest, slides, _, _ = library
        total, in_cases = 0, 0
        for client, count in manifest["rare_clients"].items():
            hits = [s for s in slides if client in _doc(s)]
            assert 1 <= len(hits) <= 6 and len(hits) == count
            total += len(hits)
            in_cases += sum(s["content_type"] == "case_study" for s in hits)
        assert in_cases < total / 2

    def test_decks_come_in_versions_that_share_a_canonical_deck(self, library):
        _, manifest, slides, _, _ = library
        names = {s["deck_name"] for s in slides}
        assert any(" V1.pptx" in n for n in names) and any(" V2.pptx" in n for n in names)
        assert any(" vFinal.pptx" in n for n in names)
        families = Counter(canonical_deck_id(n) for n in names)
        assert sum(c > 1 for c in families.values()) >= 0.25 * len(families)
        assert sum(v for k, v in manifest["versions_per_family"].items() if k != "1") > 0

    def test_case_studies_state_money_percent_fte_or_only_other_figures(self, library):
        _, _, slides, _, _ = library
        kinds = [figure_kinds(s["text"]) for s in slides if s["content_type"] == "case_study"]
        other_only = sum(k == {"other"} for k in kinds) / len(kinds)
        assert 0.1 < other_only < 0.35
        assert any("CO₂e" in s["text"] for s in slides if s["content_type"] == "case_study")
        for kind in ("dollar", "percent", "fte"):
            assert sum(kind in k for k in kinds) > 0.2 * len(kinds)

    def test_master_sheet_is_scaled_and_quantified(self, library):
        _, _, _, master, _ = library
        assert len(master) == scaled(1_194, N)
        assert all(row["client"] and row["title"] and row["summary"] for row in master)


class TestNearDuplicateChains:
    def test_boilerplate_copies_form_chains_smeared_over_a_wide_cosine_range(self, library):
        from core.embed import make_embedder
        from slidesearch.model import slide_document, snippet

        _, manifest, slides, _, _ = library
        by_id = {s["slide_id"]: s for s in slides}
        chain = max(manifest["boilerplate_chains"].values(), key=len)
        assert len(chain) >= 20
        sample = [by_id[i] for i in chain[:: max(1, len(chain) // 15)][:15]]
        vectors = make_embedder("fast").encode(
            [snippet(slide_document(s["title"], s["text"])) for s in sample]
        )
        sims = (vectors @ vectors.T)[np.triu_indices(len(sample), 1)]
        assert sims.max() >= 0.97
        assert 0.6 <= sims.min() < 0.9
        assert (sims < 0.9).any() and (sims >= 0.9).any()


class TestQueries:
    def test_about_150_queries_of_every_kind(self, library):
        _, _, _, _, queries = library
        assert 120 <= len(queries) <= 150
        kinds = Counter(q["kind"] for q in queries)
        assert set(kinds) == {
            "topic",
            "client_section",
            "person_profile",
            "rare_phrase",
            "multi_part",
            "exclusion",
            "quantified",
            "absent_term",
        }
        assert all(
            isinstance(q["query"], list) and len(q["query"]) >= 2
            for q in queries
            if q["kind"] == "multi_part"
        )

    def test_relevance_points_at_real_slides_with_grades_1_to_3(self, library):
        _, _, slides, _, queries = library
        ids = {s["slide_id"] for s in slides}
        for q in queries:
            assert set(q["relevance"]) <= ids
            assert set(q["relevance"].values()) <= {1, 2, 3}
            assert q["relevance"] or q["kind"] == "absent_term"

    def test_expectations_hold_on_the_library(self, library):
        _, _, slides, _, queries = library
        by_id = {s["slide_id"]: s for s in slides}
        corpus = "\n".join(_doc(s).lower() for s in slides)
        for q in queries:
            exp = q["expectations"]
            for term in exp.get("absent_terms", []):
                assert term not in corpus
            if "excluded_sections" in exp:
                for sid in q["relevance"]:
                    s = by_id[sid]
                    assert (
                        section_for(s["content_type"], s["title"], s["text"]) not in exp["excluded_sections"]
                    )
            if "quantified" in exp:
                assert all(exp["quantified"] in figure_kinds(by_id[sid]["text"]) for sid in q["relevance"])
            if "expected_first_slide" in exp:
                assert q["relevance"][exp["expected_first_slide"]] == 3
            if q["kind"] == "rare_phrase":
                assert all(exp["entity"] in _doc(by_id[sid]).lower() for sid in q["relevance"])
            if q["kind"] == "person_profile":
                assert all(exp["entity"] in _doc(by_id[sid]) for sid in q["relevance"])


class TestFigureKinds:
    def test_kinds(self):
        assert figure_kinds("$4.2M saved; 12% faster; 30 FTE released") == {"dollar", "percent", "fte"}
        assert figure_kinds("8,400 tonnes of CO₂e avoided") == {"other"}
        assert figure_kinds("no numbers") == frozenset()


def test_an_empty_library_is_refused(tmp_path):
    with pytest.raises(ValueError):
        generate_library(0, 1, tmp_path)


def test_ids_look_like_deck_slide_ids(library):
    _, _, slides, _, _ = library
    assert all(re.fullmatch(r"d\d{6}_Slide_\d+", s["slide_id"]) for s in slides)


@pytest.mark.parametrize("n", [1, 2, 30, 60])
def test_tiny_libraries_are_generated_whole(n, tmp_path):
    manifest = generate_library(n, 5, tmp_path)
    assert manifest["slides"] == n == len((tmp_path / "slides.jsonl").read_text().splitlines())
