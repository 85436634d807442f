"""The pipeline's contract (slidesearch/pipeline/state.py), checked against the engine's two stage lists and the code.

Every ``SearchState`` field has one producer; a stage reads only fields its list has already
produced and changes only the fields it declares; stage modules see a library only through the
public members of ``LibraryView``; each stage's constructor rejects values it cannot work with.
"""

import ast
import copy
import importlib
from collections import Counter
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

import slidesearch.pipeline
from slidesearch.config import SearchConfig
from slidesearch.engine import SlideSearch
from slidesearch.library import LibraryView
from slidesearch.pipeline.answer.caps import Caps
from slidesearch.pipeline.answer.group import GroupSections
from slidesearch.pipeline.answer.master import MasterBlend
from slidesearch.pipeline.answer.quantified import QuantifiedGate
from slidesearch.pipeline.query.expand import Expand, ExpansionLimits
from slidesearch.pipeline.query.names import DetectNames
from slidesearch.pipeline.query.normalise import NormaliseAngles
from slidesearch.pipeline.rank.boost import BoostPass
from slidesearch.pipeline.rank.multipliers import EntityFactor, Multipliers, Weights
from slidesearch.pipeline.rank.primary import Fusion, PrimaryPass
from slidesearch.pipeline.state import Bypass, SearchState
from slidesearch.pipeline.trim.deckcap import GlobalDeckCap
from slidesearch.pipeline.trim.dedup import NearDuplicateDedup
from slidesearch.pipeline.trim.floor import RelevanceFloor

REQUEST = frozenset({"query", "universes", "top_per_group"})
FIELDS = frozenset(f.name for f in fields(SearchState))
#: Fields the retrieval stages read that none of them writes: they must keep their default there.
RETRIEVAL_DEFAULTS = frozenset({"expansion"})

PIPELINE = Path(slidesearch.pipeline.__file__).parent
MODULES = sorted(PIPELINE.rglob("*.py"))


@pytest.fixture(scope="module")
def engine(small_library) -> SlideSearch:
    return SlideSearch(small_library)


def _lists(engine):
    return {"main": engine._stages, "retrieval": engine._retrieval_stages}


class TestOneProducer:
    @pytest.mark.parametrize("which", ["main", "retrieval"])
    def test_no_field_is_written_by_two_stages_of_a_list(self, engine, which):
        written = Counter(f for stage in _lists(engine)[which] for f in stage.writes)
        assert {f: n for f, n in written.items() if n > 1} == {}

    def test_every_field_but_the_request_is_written_by_exactly_one_stage(self, engine):
        writers = {f: [s.name for s in engine._stages if f in s.writes] for f in FIELDS - REQUEST}
        assert {f: names for f, names in writers.items() if len(names) != 1} == {}

    @pytest.mark.parametrize("which", ["main", "retrieval"])
    def test_no_stage_writes_a_request_field_or_a_field_the_state_does_not_have(self, engine, which):
        for stage in _lists(engine)[which]:
            assert stage.writes <= FIELDS - REQUEST, stage.name
            assert stage.reads <= FIELDS, stage.name

    @pytest.mark.parametrize("which", ["main", "retrieval"])
    def test_a_stage_reports_the_size_of_a_field_it_writes(self, engine, which):
        for stage in _lists(engine)[which]:
            assert stage.output is None or stage.output in stage.writes, stage.name


class TestReadsAfterWrites:
    def test_every_main_stage_reads_only_request_fields_and_earlier_writes(self, engine):
        available = set(REQUEST)
        for stage in engine._stages:
            assert stage.reads <= available, (stage.name, sorted(stage.reads - available))
            available |= stage.writes

    def test_every_retrieval_stage_reads_earlier_writes_or_a_listed_default(self, engine):
        available = set(REQUEST)
        written = {f for stage in engine._retrieval_stages for f in stage.writes}
        assert not RETRIEVAL_DEFAULTS & written  # a listed default that some stage writes is no default
        for stage in engine._retrieval_stages:
            missing = stage.reads - available
            assert missing <= RETRIEVAL_DEFAULTS, (stage.name, sorted(missing - RETRIEVAL_DEFAULTS))
            available |= stage.writes
        read = {f for stage in engine._retrieval_stages for f in stage.reads}
        assert read >= RETRIEVAL_DEFAULTS  # every listed default is read by some stage (no stale entry)

    def test_the_retrieval_defaults_keep_their_default_through_a_retrieval_run(self, engine):
        state, _ = engine._run(engine._retrieval_stages, SearchState(query=("fraud detection",)))
        blank = SearchState(query=("fraud detection",))
        assert state.scored
        for name in RETRIEVAL_DEFAULTS:
            assert getattr(state, name) == getattr(blank, name), name


def _same(a, b) -> bool:
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape and np.array_equal(a, b)
    return a == b


def _values(state: SearchState) -> dict[str, object]:
    return {f: getattr(state, f) for f in FIELDS}


BRIEFS = {
    "plain topic": "fraud detection",
    "multi-angle": ["customer churn analytics", "capital call notice automation"],
    "exclusion": "student engagement analytics without case studies",
    "named entity": "blackrock case studies",
    "quantified": "case studies with dollar savings",
}


class TestStagesChangeOnlyWhatTheyDeclare:
    @pytest.mark.parametrize("brief", list(BRIEFS))
    def test_each_main_stage_changes_only_its_writes_and_leaves_its_input_untouched(self, engine, brief):
        query = BRIEFS[brief]
        state = SearchState(query=(query,) if isinstance(query, str) else tuple(query))
        for stage in engine._stages:
            before = _values(state)
            snapshot = copy.deepcopy(before)
            after = _values(stage.run(state))
            changed = {f for f in FIELDS if not _same(before[f], after[f])}
            assert changed <= stage.writes, (stage.name, sorted(changed - stage.writes))
            mutated = {f for f in FIELDS if not _same(_values(state)[f], snapshot[f])}
            assert not mutated, (stage.name, sorted(mutated))
            state = stage.run(state)
        self._check_the_brief_was_exercised(brief, state)

    @staticmethod
    def _check_the_brief_was_exercised(brief, state):
        """Each brief makes the stages it is about produce something, so a stray write there would show."""
        assert state.groups and any(state.groups.values())
        if brief == "multi-angle":
            assert len(state.angles) == 2
        if brief == "exclusion":
            assert state.excluded == {"Case Studies"} and "Case Studies" not in state.groups
        if brief == "named entity":
            assert state.entity_terms == ("blackrock",) and state.entity_rows
        if brief == "quantified":
            assert "dollar" in state.quantified_demand

    def test_each_retrieval_stage_changes_only_its_writes(self, engine):
        state = SearchState(query=("blackrock portfolio analytics",))
        for stage in engine._retrieval_stages:
            before = _values(state)
            state = stage.run(state)
            changed = {f for f in FIELDS if not _same(before[f], _values(state)[f])}
            assert changed <= stage.writes, (stage.name, sorted(changed - stage.writes))
        assert state.scored and state.entity_rows

    def test_a_bypass_declares_the_field_it_copies_and_the_one_it_fills(self, small_view):
        bypass = Bypass(QuantifiedGate(small_view, None), "blended")
        assert bypass.reads == {"blended"} and bypass.writes == {"quantified"}


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


def _module_id(path: Path) -> str:
    return str(path.relative_to(PIPELINE))


class TestStagesSeeTheLibraryOnlyThroughTheView:
    def test_the_scan_covers_every_stage_package(self):
        assert {p.parent.name for p in MODULES} >= {"query", "rank", "trim", "answer"}

    @pytest.mark.parametrize("path", MODULES, ids=_module_id)
    def test_no_dynamic_attribute_read_and_no_library_attribute(self, path):
        found = []
        for node in ast.walk(_tree(path)):
            is_getattr = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
            # Bypass reads a state field by name: that is the state, not a library.
            if is_getattr and not (isinstance(node.args[0], ast.Name) and node.args[0].id == "state"):
                found.append(f"getattr at line {node.lineno}")
            if isinstance(node, ast.Attribute) and node.attr in {"library", "_library"}:
                found.append(f".{node.attr} at line {node.lineno}")
        assert found == []

    @pytest.mark.parametrize("path", MODULES, ids=_module_id)
    def test_no_stage_module_imports_the_library_itself(self, path):
        imported = set()
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("slidesearch.library"):
                imported |= {(node.module, alias.name) for alias in node.names}
            if isinstance(node, ast.Import):
                imported |= {(alias.name, "") for alias in node.names if alias.name.startswith("slidesearch.library")}
        assert imported <= {("slidesearch.library.view", "LibraryView")}

    @pytest.mark.parametrize("path", MODULES, ids=_module_id)
    def test_every_attribute_read_off_the_view_is_a_public_member_of_it(self, path, small_view):
        public = {name for name in dir(small_view) if not name.startswith("_")}
        read = set()
        for node in ast.walk(_tree(path)):
            if not isinstance(node, ast.Attribute):
                continue
            value = node.value
            is_self_view = (isinstance(value, ast.Attribute) and value.attr == "view"
                            and isinstance(value.value, ast.Name) and value.value.id == "self")
            if is_self_view or (isinstance(value, ast.Name) and value.id == "view"):
                read.add(node.attr)
        assert read - public == set()

    def test_the_view_scan_sees_the_views_use(self):
        # The scan above must find something to check: a stage that holds a view reads it.
        read = set()
        for path in MODULES:
            for node in ast.walk(_tree(path)):
                if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
                        and node.value.attr == "view"):
                    read.add(node.attr)
        assert {"bm25", "vectors", "scope_mask", "embed"} <= read


def _stage_classes():
    """Every class in the pipeline's stage modules that declares ``reads`` (a stage)."""
    out = []
    for path in MODULES:
        for node in _tree(path).body:
            if isinstance(node, ast.ClassDef) and any(
                    isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id == "reads"
                    for s in node.body):
                out.append((path, node))
    return out


def _state_reads(node: ast.AST) -> set[str]:
    return {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name) and n.value.id == "state" and n.attr in FIELDS}


def _state_helpers() -> dict[str, set[str]]:
    """Module-level functions of the pipeline that take a ``state``, and the fields each reads."""
    helpers = {}
    for path in MODULES:
        for node in _tree(path).body:
            if isinstance(node, ast.FunctionDef) and any(a.arg == "state" for a in node.args.args):
                helpers[node.name] = _state_reads(node)
    return helpers


class TestDeclaredReadsAreTheReads:
    def test_a_stage_declares_exactly_the_state_fields_it_reads(self):
        helpers = _state_helpers()
        assert "entity_row_array" in helpers
        checked = 0
        for path, cls in _stage_classes():
            if path.name == "state.py":
                continue  # the Stage protocol, and Bypass, which reads the field it is given at construction
            module = importlib.import_module(
                "slidesearch.pipeline." + ".".join(path.relative_to(PIPELINE).with_suffix("").parts))
            declared = getattr(module, cls.name).reads
            called = {n.func.id for n in ast.walk(cls) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
            read = _state_reads(cls).union(*(helpers[name] for name in called & helpers.keys()))
            assert read == declared, (cls.name, sorted(read - declared), sorted(declared - read))
            checked += 1
        # The 23 stages of the main list, AllSlides and EntityFactor of the retrieval list, and the SQL 06 and 07.
        assert checked == 27


class TestConstructorsValidate:
    """One test per stage with numeric settings: a value it cannot work with is a ValueError at construction."""

    def test_the_engines_own_settings_are_accepted(self, small_library):
        assert len(SlideSearch(small_library, SearchConfig())._stages) == 23

    @pytest.mark.parametrize(("max_chars", "max_angles"), [(0, 8), (100, 0), (-1, 8)])
    def test_normalise_angles(self, max_chars, max_angles):
        with pytest.raises(ValueError):
            NormaliseAngles(max_chars, max_angles)

    @pytest.mark.parametrize("changes", [{"taxonomy_candidates": -1}, {"cap": -1}])
    def test_expand(self, small_view, changes):
        limits = {"taxonomy_cutoff": 0.68, "taxonomy_candidates": 300, "world_cutoff": 0.5, "cap": 10, **changes}
        with pytest.raises(ValueError):
            Expand(small_view, ExpansionLimits(**limits), None)

    @pytest.mark.parametrize("threshold", [0, -3])
    def test_detect_names(self, small_view, threshold):
        with pytest.raises(ValueError):
            DetectNames(small_view, threshold)

    @pytest.mark.parametrize(("fusion", "deck"), [({"depth": 0}, 0.2), ({"method": "max"}, 0.2), ({}, -0.1)])
    def test_primary_pass(self, small_view, fusion, deck):
        settings = {"method": "blend", "depth": 300, "dense_weight": 0.5, "bm25_weight": 0.5, "rrf_k": 60, **fusion}
        with pytest.raises(ValueError):
            PrimaryPass(small_view, Fusion(**settings), deck)

    @pytest.mark.parametrize(("cap", "share"), [(-0.1, 0.5), (0.35, 1.0), (0.35, -0.1)])
    def test_boost_pass(self, small_view, cap, share):
        with pytest.raises(ValueError):
            BoostPass(small_view, Fusion.from_config(SearchConfig()), cap, share)

    @pytest.mark.parametrize("changes", [
        {"folder_strength": 1.5}, {"type_strength": -0.1}, {"low_content_weight": 0.0}, {"low_content_weight": 1.1},
        {"entity_boost": 0.9}, {"recency_max": -0.1}])
    def test_multipliers(self, small_view, changes):
        settings = {**Weights.from_config(SearchConfig()).__dict__, **changes}
        with pytest.raises(ValueError):
            Multipliers(small_view, Weights(**settings))

    @pytest.mark.parametrize("boost", [0.99, 0.0, -1.0])
    def test_entity_factor(self, boost):
        with pytest.raises(ValueError):
            EntityFactor(boost)

    @pytest.mark.parametrize("threshold", [0.0, 1.01, -0.5])
    def test_near_duplicate_dedup(self, small_view, threshold):
        with pytest.raises(ValueError):
            NearDuplicateDedup(small_view, threshold)

    @pytest.mark.parametrize("cap", [0, -2])
    def test_global_deck_cap(self, small_view, cap):
        with pytest.raises(ValueError):
            GlobalDeckCap(small_view.canonical_decks, cap)

    @pytest.mark.parametrize(("share", "cosine"), [(1.0, 0.0), (-0.1, 0.0), (0.5, 1.0), (0.5, -0.1)])
    def test_relevance_floor(self, share, cosine):
        with pytest.raises(ValueError):
            RelevanceFloor(share, cosine)

    @pytest.mark.parametrize("cap", [0, -1])
    def test_group_sections(self, small_view, cap):
        with pytest.raises(ValueError):
            GroupSections(small_view.section_table, small_view.canonical_decks, cap)

    @pytest.mark.parametrize(("most", "decay"), [(0, 0.01), (15, 0.0), (15, 1.0)])
    def test_master_blend(self, small_view, most, decay):
        with pytest.raises(ValueError):
            MasterBlend(small_view, most, 0.45, decay)

    @pytest.mark.parametrize(("section", "total"), [(0, 50), (15, 0), (-1, 50)])
    def test_caps(self, section, total):
        with pytest.raises(ValueError):
            Caps(section, total)


class TestConstructorsRejectWhatTheConfigRejects:
    """Values ``SearchConfig`` rejects are rejected by the stage objects too, which can be built without a config."""

    @pytest.mark.parametrize("changes", [{"dense_weight": -0.5}, {"bm25_weight": -1.0}, {"rrf_k": -60}])
    def test_fusion_weights_and_rrf_k(self, changes):
        settings = {"method": "rrf", "depth": 300, "dense_weight": 0.5, "bm25_weight": 0.5, "rrf_k": 60, **changes}
        with pytest.raises(ValueError):
            Fusion(**settings)

    def test_master_blend_min_similarity(self, small_view):
        with pytest.raises(ValueError):
            MasterBlend(small_view, 15, 1.5, 0.01)

    def test_weights_content_rich_chars(self):
        settings = {**Weights.from_config(SearchConfig()).__dict__, "content_rich_chars": -1}
        with pytest.raises(ValueError):
            Weights(**settings)


def test_a_view_refuses_a_library_it_cannot_serve(small_slides):
    from slidesearch.library import Library

    library = Library.from_slides(small_slides[:3], embedder="fast")
    library.bm25 = None
    with pytest.raises(ValueError, match="BM25"):
        LibraryView(library)
