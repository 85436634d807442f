"""Append a run's one-line summary to docs/EXPERIMENT_LOG.md (append only, never rewritten)."""

from __future__ import annotations

from pathlib import Path

from eval.runs import RunRecord

EXPERIMENT_LOG = Path(__file__).resolve().parent.parent / "docs" / "EXPERIMENT_LOG.md"

HEADLINE = {
    "retrieve": ("ndcg@10", "mrr@10"),
    "pipeline": ("correct_share", "wrong_share", "50-50_share", "ndcg@10", "zero_result_queries"),
    "simulator": ("technical_score", "hr10", "mrr"),
}


def headline(name: str, result_summary: dict[str, float], mode: str) -> str:
    """``dataset k=v k=v`` with the figures that matter for that kind of dataset."""
    figures = " ".join(f"{k}={result_summary[k]:.4f}" for k in HEADLINE.get(mode, ()) if k in result_summary)
    return f"{name} {figures}".strip()


def log_line(record: RunRecord, change: str) -> str:
    """The markdown table row for ``record``: date, commit, change, figures per dataset, verdict."""
    figures = "; ".join(
        f"{name} ERROR" if d.error else headline(name, d.summary, d.mode) for name, d in record.datasets.items()
    )
    failed = [f"{name}: {g.name}" for name, d in record.datasets.items() for g in d.gates if not g.passed]
    failed += [f"{name}: error" for name, d in record.datasets.items() if d.error]
    verdict = "gates pass" if not failed else "FAILED " + ", ".join(failed)
    commit = record.code_version[:10] + ("+dirty" if record.code_dirty else "")
    cells = [record.created[:10], commit, f"{change} (run {record.run_id})", figures, verdict]
    return "| " + " | ".join(c.replace("|", "/").replace("\n", " ") for c in cells) + " |\n"


def append_log(record: RunRecord, change: str, path: Path | None = None) -> str:
    """Append the run's row to the experiment log (default docs/EXPERIMENT_LOG.md) and return it."""
    line = log_line(record, change)
    with (path or EXPERIMENT_LOG).open("a", encoding="utf-8") as fh:
        fh.write(line)
    return line
