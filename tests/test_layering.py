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
