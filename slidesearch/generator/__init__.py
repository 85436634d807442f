"""A deterministic synthetic slide library with the original's proportions, and labelled queries over it.

The original library (122,623 slides) is private; the seed write-up gives its
shape, which this generator reproduces at any size N (counts below are per
122,623 and scale with N):

- universes DAAIS / S&R / EdTech; folders for client decks
  (``/U/Clients/<client>``), capability collateral
  (``/U/Sales/Collateral/Technology Capabilities``), proposals
  (``/U/Sales/Proposals/<year>``), domain decks (``/U/Domain/<industry>``) and
  case-study compilations; decks in families of versions (V1, V2, vFinal,
  draft, final, dated copies) whose later versions copy earlier slides with
  small edits;
- the content-type mix (content 47,341, diagram 14,112, case_study 13,223,
  table 6,649, framework 2,922, dashboard 1,272, team 1,546, the rest spread
  over title, agenda, section, closing, image, chart, process, timeline,
  comparison and overview slides);
- boilerplate slides copied from deck to deck with small edits, so each
  template forms a near-duplicate chain (a copy is edited from an earlier
  copy, a random walk whose ends drift apart: cosine 0.74-0.99 in the seed);
- exact-count carve-outs and rarities: ~870 award / analyst-recognition
  slides, ~640 scope-of-work / payment-terms slides, a co-founder named on
  ~380 team/leadership slides, rare phrases ("capital call" on 50 slides),
  rare client names on a handful of slides each, mostly outside case studies;
- case studies stating dollar / percent / FTE figures, and some stating only
  other figures (tonnes of CO2e, turnaround times);
- a master sheet of ~1,194 verified case studies.

It also writes ``queries.jsonl``: ~150 queries of the kinds reps type, each
with graded relevance {slide_id: 1..3} computed from what the generator put on
each slide (not from searching), plus expectations where they apply. Every
random choice comes from one seeded ``random.Random``, so a seed and a size
always give the same files.

Modules by job: ``world`` (the company, clients, people and deck plans, drawn at random),
``render`` (each slide's title and text, the master sheet, the files), ``queries`` (the
labelled queries, one builder per kind) and ``vocab`` (the words they are written with).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from slidesearch.generator.queries import N_QUERIES, build_queries
from slidesearch.generator.render import (
    figure_kinds,
    manifest_of,
    master_sheet,
    render_slides,
    slide_row,
    write_jsonl,
    write_text,
)
from slidesearch.generator.world import make_world, mark_specials, plan_decks, plan_slots


def generate_library(
    n: int, seed: int, out: Path, progress: Callable[[str, int, int], None] | None = None
) -> dict[str, Any]:
    """Write ``slides.jsonl``, ``master.jsonl``, ``queries.jsonl`` and ``manifest.json`` for an ``n``-slide library."""
    if n < 1:
        raise ValueError("the library needs at least one slide")
    started = time.perf_counter()
    rng = random.Random(seed)
    world = make_world(rng, n)
    plans = plan_decks(rng, world, n)
    slots = plan_slots(rng, plans, n)
    for slot in slots:
        slot.slide_id = f"{slot.deck.deck_id}_Slide_{slot.number}"
    rare_plan = mark_specials(rng, slots, world, n)
    render_slides(rng, slots, world, rare_plan)
    for slot in slots:
        if slot.content_type == "case_study":
            slot.figures = figure_kinds(slot.text)
    if progress:
        progress("slides", len(slots), n)
    master = master_sheet(rng, slots, n)
    queries = build_queries(rng, slots, world, N_QUERIES)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "slides.jsonl", (slide_row(s) for s in slots))
    write_jsonl(out / "master.jsonl", master)
    write_jsonl(out / "queries.jsonl", queries)
    manifest = manifest_of(slots, world, plans, master, queries, n, seed)
    manifest["seconds"] = round(time.perf_counter() - started, 2)
    write_text(out / "manifest.json", json.dumps(manifest, indent=1, ensure_ascii=False))
    return manifest
