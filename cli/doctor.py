"""`seek doctor`: what is installed, which settings are in force, which LLM keys exist (never their values)."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import sys
import time

import typer
from rich.table import Table

from cli.console import console, print_json
from core.settings import get_settings

PACKAGES = ("numpy", "faiss-cpu", "bm25s", "rank-bm25", "torch", "sentence-transformers", "wordllama",
            "pydantic", "typer", "python-pptx", "pypdf", "anthropic", "google-genai", "openai", "mcp", "fastapi")

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
    for title, section in report.items():
        if isinstance(section, dict):
            table = Table(title=title, show_header=False)
            for key, value in section.items():
                table.add_row(str(key), str(value))
            console.print(table)
        else:
            console.print(f"[bold]{title}[/]: {section}")
