"""What slide thumbnails cost: seconds per deck rendered (LibreOffice -> PDF -> pdftoppm), one worker and N.

Renders a sample of real decks (default: the realdecks development set) into a fresh
thumbnail store, first with one worker, then again into another fresh store with
``--workers`` workers, then once more into the second store to time the incremental
pass (nothing changed, nothing rendered). From the measured figures it estimates a
5,000-deck library: on one core, the sample's mean seconds per deck times 5,000; on N
workers, 5,000 divided by the decks per second measured at N workers (valid only up to
the cores the machine has: each worker is one LibreOffice process on one core).

Measured on the 2-core development machine under load (load average 7-9 from other jobs),
12 realdecks decks, 183 slides: one worker 130.5 s (10.8 s mean, 9.1 s median, 24.6 s max per
deck; 0.71 s per slide), two workers 74.1 s (0.162 decks/s), incremental re-run 0.32 s with
nothing rendered. Estimate for 5,000 decks: 15.1 h on one core, 8.6 h on two workers. Every
deck starts its own LibreOffice with a fresh profile (the cold start dominates small decks).

Run: ``python -m bench.render_bench [--decks DIR] [--limit 12] [--workers 2] [--out FILE]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from core.settings import get_settings
from slidesearch.thumbnails import RENDERABLE, ThumbnailStore, render_decks

LIBRARY_DECKS = 5_000


def _sample(decks: Path, limit: int) -> list[Path]:
    found = sorted(p for p in decks.rglob("*") if p.suffix.lower() in RENDERABLE and p.is_file())
    step = max(len(found) // limit, 1) if limit else 1
    return found[::step][:limit] if limit else found


def bench_render(decks: Path, limit: int, workers: int) -> dict[str, object]:
    """Render the sample at 1 and ``workers`` workers, then re-run incrementally; the figures and the estimate."""
    paths = _sample(decks, limit)
    with tempfile.TemporaryDirectory(prefix="seek-render-bench-") as tmp:
        one = render_decks(paths, ThumbnailStore(Path(tmp) / "one"), workers=1)
        many_store = ThumbnailStore(Path(tmp) / "many")
        many = render_decks(paths, many_store, workers=workers)
        started = time.perf_counter()
        again = render_decks(paths, many_store, workers=workers)
        incremental_s = time.perf_counter() - started
    per_deck = one.render_seconds
    rendered = max(one.decks_rendered + len(one.failures), 1)
    mean_s = statistics.fmean(per_deck) if per_deck else float("nan")
    decks_per_s_n = len(many.render_seconds) / many.seconds if many.seconds else float("nan")
    return {
        "decks": len(paths),
        "slides_rendered": one.thumbnails_written,
        "failures": [f.model_dump() for f in one.failures],
        "one_worker": {"wall_s": one.seconds, "mean_s_per_deck": round(mean_s, 3),
                       "median_s_per_deck": round(statistics.median(per_deck), 3) if per_deck else None,
                       "max_s_per_deck": round(max(per_deck), 3) if per_deck else None,
                       "s_per_slide": round(one.seconds / max(one.thumbnails_written, 1), 4)},
        f"{workers}_workers": {"wall_s": many.seconds, "decks_per_s": round(decks_per_s_n, 3)},
        "incremental_rerun": {"decks_rendered": again.decks_rendered, "wall_s": round(incremental_s, 3)},
        "estimate_5000_decks": {
            "one_core_hours": round(LIBRARY_DECKS * one.seconds / rendered / 3600, 2),
            f"{workers}_workers_hours": round(LIBRARY_DECKS / decks_per_s_n / 3600, 2),
            "cpu_count": os.cpu_count(),
            "note": "N workers scale only up to the machine's free cores; the sample's decks are small "
                    f"({one.thumbnails_written / max(len(paths), 1):.0f} slides each on average)",
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decks", type=Path, default=get_settings().data_dir / "realdecks" / "decks")
    parser.add_argument("--limit", type=int, default=12, help="Decks in the sample (0: all).")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None, help="Also write the figures here as JSON.")
    args = parser.parse_args()
    result = bench_render(args.decks, args.limit, args.workers)
    text = json.dumps(result, indent=2)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
