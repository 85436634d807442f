"""``seek eval report``: one self-contained HTML page over one or more runs, plus the main chart as PNG.

Charts are drawn with matplotlib's Agg backend and embedded as base64 PNG, so
the page needs no network, no script and no other file. Charts: correct / wrong /
50-50 stacked bars per run and dataset (the seed's page), wrong verdicts by
section, zero-result queries, IR metrics per dataset, Ten Turns metrics per
scenario, and the per-stage candidate funnel of a traced query. Tables below
each chart carry the exact figures.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from eval.runs import RunRecord, atomic_write  # noqa: E402

VERDICT_COLOURS = {"correct": "#2e7d32", "wrong": "#c62828", "50-50": "#f9a825"}
IR_METRICS = ("ndcg@10", "mrr@10", "recall@10")
TURNS_METRICS = ("hr10", "mrr")


def _png(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def _label(run: RunRecord, dataset: str, many_runs: bool) -> str:
    return f"{run.run_id} · {dataset}" if many_runs else dataset


def verdict_chart(runs: Sequence[RunRecord]) -> bytes | None:
    """Horizontal 100% stacked bars of correct / wrong / 50-50 per run and judged dataset."""
    rows = [
        (_label(r, n, len(runs) > 1), d.verdicts, sum(d.verdicts.get(v, 0) for v in VERDICT_COLOURS))
        for r in runs for n, d in r.datasets.items() if d.verdicts
    ]
    rows = [row for row in rows if row[2] > 0]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(9, 0.6 * len(rows) + 1.4))
    labels = [f"{label}\n{total:,} judged" for label, _, total in rows]
    left = [0.0] * len(rows)
    for verdict, colour in VERDICT_COLOURS.items():
        shares = [100.0 * counts.get(verdict, 0) / total for _, counts, total in rows]
        bars = ax.barh(labels, shares, left=left, color=colour, label=verdict)
        for bar, share in zip(bars, shares, strict=True):
            if share >= 6:
                ax.text(bar.get_x() + bar.get_width() / 2, bar.get_y() + bar.get_height() / 2, f"{share:.0f}%",
                        ha="center", va="center", color="white", fontsize=9, fontweight="bold")
        left = [a + b for a, b in zip(left, shares, strict=True)]
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of judged results (%)")
    ax.invert_yaxis()
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False)
    ax.set_title("Correct / wrong / 50-50 per run", pad=28)
    return _png(fig)


def wrong_by_section_chart(runs: Sequence[RunRecord]) -> bytes | None:
    """Grouped horizontal bars: wrong verdicts per section, one colour per run × dataset."""
    series = [(_label(r, n, len(runs) > 1), d.wrong_by_section) for r in runs for n, d in r.datasets.items()
              if d.wrong_by_section]
    if not series:
        return None
    sections = sorted({s for _, counts in series for s in counts}, key=lambda s: -max(c.get(s, 0) for _, c in series))
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(sections) * max(1, len(series)) ** 0.5 + 1.5))
    height = 0.8 / len(series)
    for k, (label, counts) in enumerate(series):
        ax.barh([i + k * height for i in range(len(sections))], [counts.get(s, 0) for s in sections],
                height=height, label=label)
    ax.set_yticks([i + 0.4 - height / 2 for i in range(len(sections))], sections)
    ax.invert_yaxis()
    ax.set_xlabel("wrong verdicts")
    ax.set_title("Where the wrong verdicts come from, by section")
    ax.legend(fontsize=8)
    return _png(fig)


def zero_result_chart(runs: Sequence[RunRecord]) -> bytes | None:
    """Bars of zero-result queries per run and slides dataset (the standing rule: all must be 0)."""
    rows = [
        (_label(r, n, len(runs) > 1), sum(1 for i in d.items if i.n_results == 0))
        for r in runs for n, d in r.datasets.items() if d.suite == "slides" and d.items
    ]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(9, 0.4 * len(rows) + 1.3))
    counts = [c for _, c in rows]
    ax.barh([label for label, _ in rows], counts, color=["#c62828" if c else "#2e7d32" for c in counts])
    for y, c in enumerate(counts):
        ax.text(max(c, 0) + 0.05, y, str(c), va="center")
    ax.set_xlim(0, max(max(counts), 1) * 1.2 + 0.5)
    ax.invert_yaxis()
    ax.set_xlabel("queries with zero results (must be 0)")
    ax.set_title("Zero-result queries")
    return _png(fig)


def _grouped_bars(title: str, groups: list[str], series: list[tuple[str, list[float]]], ylabel: str) -> bytes:
    fig, ax = plt.subplots(figsize=(max(6.0, 1.2 * len(groups) * max(1, len(series)) ** 0.5 + 2), 4))
    width = 0.8 / len(series)
    for k, (label, values) in enumerate(series):
        bars = ax.bar([i + k * width for i in range(len(groups))], values, width=width, label=label)
        for bar, value in zip(bars, values, strict=True):
            ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height() + 0.01, f"{value:.3f}",
                    ha="center", va="bottom", fontsize=7, rotation=90)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(groups))], groups, rotation=20, ha="right")
    ax.set_ylim(0, 1.15)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper right")
    return _png(fig)


def ir_chart(runs: Sequence[RunRecord]) -> bytes | None:
    """nDCG@10, MRR@10 and Recall@10 per dataset (and run)."""
    groups = [_label(r, n, len(runs) > 1) for r in runs for n, d in r.datasets.items() if "ndcg@10" in d.summary]
    if not groups:
        return None
    summaries = [d.summary for r in runs for d in r.datasets.values() if "ndcg@10" in d.summary]
    series = [(m, [s.get(m, 0.0) for s in summaries]) for m in IR_METRICS]
    return _grouped_bars("IR metrics per dataset", groups, series, "score")


def turns_chart(runs: Sequence[RunRecord]) -> bytes | None:
    """Small multiples, one per run × turns dataset: HR@10 and MRR per scenario and overall, TechnicalScore in the title."""
    rows = [(r, n, d) for r in runs for n, d in r.datasets.items() if d.suite == "turns" and d.per_group]
    if not rows:
        return None
    cols = min(2, len(rows))
    n_rows = -(-len(rows) // cols)
    fig, axes = plt.subplots(n_rows, cols, figsize=(5.6 * cols, 3.4 * n_rows), squeeze=False)
    for ax in axes.flat[len(rows):]:
        ax.set_visible(False)
    for ax, (r, n, d) in zip(axes.flat, rows, strict=False):
        groups = [*d.per_group, "overall"]
        for k, metric in enumerate(TURNS_METRICS):
            values = [m.get(metric, 0.0) for m in d.per_group.values()] + [d.summary.get(metric, 0.0)]
            ax.bar([i + k * 0.4 for i in range(len(groups))], values, width=0.4, label=metric)
        ax.set_xticks([i + 0.2 for i in range(len(groups))], groups, rotation=15, fontsize=8)
        ax.set_ylim(0, 1.05)
        ax.set_title(f"{_label(r, n, len(runs) > 1)} · TechnicalScore {d.summary.get('technical_score', 0.0):.6f}",
                     fontsize=9)
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return _png(fig)


def funnel_rows(trace: Any) -> list[tuple[str, int, int]]:
    """(stage, in, out) rows from a search_v2 trace: a list of stage records or a mapping stage -> record."""
    stages = trace.get("stages", trace) if isinstance(trace, dict) else trace
    if isinstance(stages, dict):
        stages = [{"stage": name, **value} for name, value in stages.items() if isinstance(value, dict)]
    rows = []
    for stage in stages or []:
        if not isinstance(stage, dict):
            continue
        name = stage.get("stage") or stage.get("name") or "?"
        n_in = stage.get("in", stage.get("n_in", stage.get("candidates_in")))
        n_out = stage.get("out", stage.get("n_out", stage.get("candidates_out")))
        if isinstance(n_in, int) and isinstance(n_out, int):
            rows.append((str(name), n_in, n_out))
    return rows


def funnel_chart(runs: Sequence[RunRecord]) -> tuple[bytes, str] | None:
    """Per-stage candidate counts (in and out) for a traced query: a pipeline dataset's when there is one."""
    traced = [(r, n, d) for r in runs for n, d in r.datasets.items() if d.trace]
    for r, n, d in sorted(traced, key=lambda t: t[2].mode != "pipeline"):
        rows = funnel_rows(d.trace["stages"]) if d.trace else []
        if not rows:
            continue
        fig, ax = plt.subplots(figsize=(9, 0.38 * len(rows) + 1.5))
        labels = [stage for stage, _, _ in rows]
        ax.barh(labels, [i for _, i, _ in rows], color="#90caf9", label="in")
        ax.barh(labels, [o for _, _, o in rows], color="#1565c0", height=0.5, label="out")
        for y, (_, n_in, n_out) in enumerate(rows):
            ax.text(max(n_in, n_out, 1) * 1.15, y, f"{n_in:,} → {n_out:,}", va="center", fontsize=7)
        ax.set_xscale("symlog")
        ax.set_xlim(0, max(n for _, n, _ in rows) * 12)
        ax.invert_yaxis()
        ax.set_xlabel("candidates (symlog)")
        ax.legend()
        query = d.trace["query"] if d.trace else ""
        ax.set_title(f"Candidate funnel · {n} · {query!r}"[:110])
        return _png(fig), f"{r.run_id} · {n} · query {query!r}"
    return None


def _img(png: bytes, alt: str) -> str:
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'


def _table(header: list[str], rows: list[list[Any]]) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6f}".rstrip("0").rstrip(".") if value != int(value) else f"{int(value)}"
    return str(value)


def _runs_table(runs: Sequence[RunRecord]) -> str:
    rows = []
    for r in runs:
        u = r.usage
        rows.append([r.run_id, r.created, r.suite, r.code_version[:10] + ("+dirty" if r.code_dirty else ""),
                     r.config.get("name", ""), r.settings.get("embedder", ""), r.settings.get("llm", ""),
                     r.settings.get("judge_llm", ""), f"{r.seconds:.1f}", u.prompt_tokens + u.completion_tokens,
                     f"${u.cost_usd:.4f}", "pass" if r.passed else "FAIL"])
    return _table(["run", "created", "suite", "code", "config", "embedder", "llm", "judge", "seconds",
                   "tokens", "cost", "gates"], rows)


def _datasets_table(runs: Sequence[RunRecord]) -> str:
    rows = []
    for r in runs:
        for n, d in r.datasets.items():
            gates = "; ".join(f"{g.name} {'pass' if g.passed else 'FAIL: ' + g.detail}" for g in d.gates)
            figures = " ".join(f"{k}={v:.4f}" for k, v in d.summary.items())
            rows.append([r.run_id, n, d.mode, d.judge, len(d.items), f"{d.seconds:.1f}", d.error or gates, figures])
    return _table(["run", "dataset", "mode", "judge", "items", "seconds", "gates", "figures"], rows)


def _product_tables(runs: Sequence[RunRecord]) -> str:
    """Per run and product dataset (``eval.product``): the figures by kind of brief, with the reference rankers."""
    from eval.product import ANSWERED, by_kind_table

    parts = []
    for r in runs:
        for n, d in r.datasets.items():
            if d.error is None and d.primary == ANSWERED:
                header, rows = by_kind_table(d.summary, d.per_group)
                parts.append(f"<h3>{html.escape(r.run_id)} · {html.escape(n)}</h3>{_table(header, rows)}")
    if not parts:
        return ""
    return ("<h2>Product measure by kind of brief</h2><p class='note'>Cards by score; nDCG@10 against the best answer "
            "the deck cap of 2 allows; MiniLM / retrieve: their top 10 against their own best (capped: walked with "
            "the deck cap, against the capped ideal); precision over judged shown cards.</p>" + "".join(parts))


def _comparisons(runs: Sequence[RunRecord]) -> str:
    """With several runs: the first is the baseline, every later one a candidate, paired and gated."""
    if len(runs) < 2:
        return ""
    from eval.compare import compare_runs

    rows = []
    for candidate in runs[1:]:
        result = compare_runs(runs[0], candidate)
        for d in result.datasets:
            p = d.paired
            rows.append([candidate.run_id, d.name, d.primary] + (
                [p.n, p.baseline_mean, p.candidate_mean, f"{p.diff:+.4f}", f"[{p.ci_low:+.4f}, {p.ci_high:+.4f}]",
                 p.outcome] if p else ["", "", "", "", "", f"not compared: {d.note}"]))
        rows.append([candidate.run_id, "agreement gate", "", "", "", "", "", "",
                     ("ACCEPT — " if result.verdict.accepted else "REJECT — ") + result.verdict.detail])
    header = ["candidate", "dataset", "primary", "n", "baseline", "candidate mean", "diff", "95% CI", "outcome"]
    return f"<h2>Paired comparison against {html.escape(runs[0].run_id)}</h2>{_table(header, rows)}"


def render_report(runs: Sequence[RunRecord], out: Path) -> tuple[Path, Path | None]:
    """Write the HTML page to ``out`` and the main chart to ``out`` with a ``.png`` suffix; returns both paths."""
    if not runs:
        raise ValueError("a report needs at least one run")
    charts: list[tuple[str, bytes | None, str]] = [
        ("Correct / wrong / 50-50", verdict_chart(runs), "No judged pipeline dataset in these runs."),
        ("Wrong by section", wrong_by_section_chart(runs), "No wrong verdicts to break down."),
        ("Zero-result queries", zero_result_chart(runs), "No slides dataset in these runs."),
        ("IR metrics per dataset", ir_chart(runs), "No labelled slides dataset in these runs."),
        ("Ten Turns per scenario", turns_chart(runs), "No Ten Turns dataset in these runs."),
    ]
    funnel = funnel_chart(runs)
    charts.append(("Candidate funnel", funnel[0] if funnel else None,
                   "No trace recorded (the engine's search_v2 trace)."))
    sections = []
    for title, png, empty in charts:
        caption = f"<p class='note'>{html.escape(funnel[1])}</p>" if title == "Candidate funnel" and funnel else ""
        body = _img(png, title) if png else f"<p class='note'>{html.escape(empty)}</p>"
        sections.append(f"<section><h2>{html.escape(title)}</h2>{caption}{body}</section>")
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>seek eval report</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1150px; color: #222; }}
img {{ max-width: 100%; border: 1px solid #ddd; }}
table {{ border-collapse: collapse; font-size: 12px; margin: 0.5rem 0 1.5rem; }}
td, th {{ border: 1px solid #ccc; padding: 2px 6px; text-align: left; vertical-align: top; }}
.note {{ color: #666; }}
</style></head><body>
<h1>seek eval report</h1>
<p class="note">{len(runs)} run(s). Judge verdicts: correct / 50-50 / wrong per card; IR metrics from graded labels;
Ten Turns metrics from the environment's evaluator.</p>
<h2>Runs</h2>{_runs_table(runs)}
<h2>Datasets</h2>{_datasets_table(runs)}
{_product_tables(runs)}
{_comparisons(runs)}
{''.join(sections)}
</body></html>
"""
    out = Path(out)
    atomic_write(out, page)
    main = next((png for _, png, _ in charts if png), None)
    png_path = out.with_suffix(".png") if main else None
    if main and png_path is not None:
        tmp = png_path.with_name(f".{png_path.name}.tmp")
        tmp.write_bytes(main)
        tmp.replace(png_path)
    return out, png_path
