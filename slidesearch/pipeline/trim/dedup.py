"""Spec steps 09 and 10: exact-content dedup, then union-find near-duplicate dedup at cosine 0.90."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

import numpy as np

from core.dedup import near_duplicate_groups
from slidesearch.library.view import LibraryView
from slidesearch.pipeline.state import Candidate, SearchState


def fold_versions(cands: tuple[Candidate, ...], roots: list[object], view: LibraryView) -> tuple[Candidate, ...]:
    """One candidate per group of copies (``roots[i]`` names candidate i's group), in score order.

    A group keeps its best-scored candidate, unless another version of the same deck (same
    family, ``Library.canonical_decks``) holds the slide too: then the newest version's copy is
    shown (a rep wants the vFinal, not the V1 that happened to score higher), and the kept card
    names the other versions that hold it (``Candidate.versions``).
    """
    groups: dict[object, list[int]] = {}
    for i, root in enumerate(roots):
        groups.setdefault(root, []).append(i)
    families, dates, names, decks = view.canonical_decks, view.deck_dates, view.deck_names, view.deck_ids
    kept: list[tuple[int, Candidate]] = []
    for members in groups.values():
        best = min(members, key=lambda i: (-cands[i].score, i))
        if cands[best].row < 0 or len(members) == 1:
            kept.append((best, cands[best]))
            continue
        family = [i for i in members if cands[i].row >= 0 and families[cands[i].row] == families[cands[best].row]]
        newest = max(family, key=lambda i: (dates[cands[i].row] is not None, dates[cands[i].row] or 0, cands[i].score, -i))
        chosen = cands[newest]
        own_deck = decks[chosen.row]
        others = {names[cands[i].row] for i in family if decks[cands[i].row] != own_deck}
        others.update(v for i in family for v in cands[i].versions)
        others.discard(names[chosen.row])
        if others:
            chosen = chosen.evolve(versions=tuple(sorted(others)))
        kept.append((best, chosen))
    kept.sort(key=lambda pair: (-pair[1].score, pair[0]))
    return tuple(c for _, c in kept)


class ExactDedup:
    """09: slides with the same normalised snippet are one; the newest version of a deck shows it (``fold_versions``)."""

    name = "09 exact dedup"
    reads: ClassVar[frozenset[str]] = frozenset({"scored"})
    writes: ClassVar[frozenset[str]] = frozenset({"unique"})
    output: ClassVar[str | None] = "unique"

    def __init__(self, view: LibraryView) -> None:
        self.view = view

    def run(self, state: SearchState) -> SearchState:
        cands = state.scored
        digests: list[object] = [self.view.snippet_digest(c.row) if c.row >= 0 else ("master", c.master) for c in cands]
        return replace(state, unique=fold_versions(cands, digests, self.view))


class NearDuplicateDedup:
    """10: every candidate pair at cosine >= threshold joined by union-find; each group keeps its best (or the
    newest version of its deck, ``fold_versions``).

    Not a greedy walk against what is kept: chains of copies smeared over 0.74-0.99 survive
    that (seed step 10; core.dedup).
    """

    name = "10 near-duplicate dedup"
    reads: ClassVar[frozenset[str]] = frozenset({"unique"})
    writes: ClassVar[frozenset[str]] = frozenset({"distinct"})
    output: ClassVar[str | None] = "distinct"

    def __init__(self, view: LibraryView, threshold: float) -> None:
        if not 0 < threshold <= 1:
            raise ValueError(f"near-duplicate threshold must be in (0, 1], got {threshold}")
        self.view, self.threshold = view, threshold

    def run(self, state: SearchState) -> SearchState:
        cands = state.unique
        if len(cands) < 2:
            return replace(state, distinct=cands)
        rows = np.fromiter((c.row for c in cands), dtype=np.int64, count=len(cands))
        vectors = np.asarray(self.view.vectors[rows], dtype=np.float32)
        roots: list[object] = list(near_duplicate_groups(vectors, self.threshold))
        return replace(state, distinct=fold_versions(cands, roots, self.view))
