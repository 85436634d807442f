import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("core", "llm_adapters", "slidesearch", "tenturns", "eval", "cli", "bench")
ALLOWED = {
    "core": {"core"},
    "llm_adapters": {"core", "llm_adapters"},
    "slidesearch": {"core", "llm_adapters", "slidesearch"},
    "tenturns": {"core", "llm_adapters", "tenturns"},
    "eval": {"core", "llm_adapters", "slidesearch", "tenturns", "eval"},
    "bench": {"core", "llm_adapters", "slidesearch", "tenturns", "eval", "bench"},
    "cli": set(PACKAGES),
}


def _imported_packages(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found.update(name.split(".")[0] for name in names if name.split(".")[0] in PACKAGES)
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_package_imports_only_what_its_layer_allows(package):
    offenders = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        bad = _imported_packages(path) - ALLOWED[package]
        if bad:
            offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert offenders == {}


# Inside slidesearch: which part may import which (docs/ARCHITECTURE.md, "SlideSearch: the house").
LEAVES = {"model", "config", "response", "sections", "content_type", "roles", "passage"}
PIPELINE_PHASES = ("query", "rank", "trim", "answer")
SLIDESEARCH_ALLOWED = {
    "leaf": LEAVES,
    "library": LEAVES | {"library"},
    "generator": LEAVES | {"generator"},
    "pipeline": LEAVES | {"library", "pipeline"},
    **{f"pipeline.{phase}": LEAVES | {"library", "pipeline"} | {f"pipeline.{p}" for p in PIPELINE_PHASES[: i + 1]}
       for i, phase in enumerate(PIPELINE_PHASES)},
    "engine": LEAVES | {"library", "pipeline", *(f"pipeline.{p}" for p in PIPELINE_PHASES), "explain", "engine"},
    "explain": LEAVES | {"explain"},
}
#: Everything else (ingest, store, index, stats, assemble, explain, request, freshness, serve, ...) may use the
#: leaves, the library and each other, and reaches the pipeline only through the engine.
OUTSIDE_PIPELINE = "the rest"


def _slidesearch_part(module: str) -> str:
    parts = module.split(".")[1:]
    if not parts or parts == ["__init__"]:
        return OUTSIDE_PIPELINE
    if parts[0] in LEAVES:
        return "leaf"
    if parts[0] == "pipeline":
        return f"pipeline.{parts[1]}" if len(parts) > 2 and parts[1] in PIPELINE_PHASES else "pipeline"
    if parts[0] in {"library", "generator", "engine", "explain"}:
        return parts[0]
    return OUTSIDE_PIPELINE


def _target_part(module: str) -> str:
    part = _slidesearch_part(module)
    if part == "leaf":
        return module.split(".")[1]
    return part


def _slidesearch_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("slidesearch."))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.startswith("slidesearch."):
            found.add(node.module)
    return found


def test_slidesearch_parts_import_only_what_the_house_allows():
    offenders: dict[str, list[str]] = {}
    for path in sorted((ROOT / "slidesearch").rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        part = _slidesearch_part(module)
        for imported in sorted(_slidesearch_imports(path)):
            target = _target_part(imported)
            if part == OUTSIDE_PIPELINE:
                bad = target.startswith("pipeline")
            else:
                allowed = SLIDESEARCH_ALLOWED[part]
                bad = target not in allowed and target != part
            if bad:
                offenders.setdefault(str(path.relative_to(ROOT)), []).append(imported)
    assert offenders == {}


def test_the_house_rule_catches_a_later_phase_imported_by_an_earlier_one():
    assert "pipeline.answer" not in SLIDESEARCH_ALLOWED["pipeline.query"]
    assert "pipeline.query" in SLIDESEARCH_ALLOWED["pipeline.answer"]
    assert _slidesearch_part("slidesearch.pipeline.rank.primary") == "pipeline.rank"
    assert _target_part("slidesearch.model") == "model" and _slidesearch_part("slidesearch.serve.service") == "the rest"
