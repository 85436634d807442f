"""Spec step 07a: the primary pass — each angle searched exactly within the pool, voters fused.

Each angle has two voters over the pool: exact cosine against the slide vectors (the
seed's only voter) and BM25 over the slide's whole text (added here: on SlideVQA BM25 alone beat
MiniLM alone, 0.851 vs 0.765 MRR@10). ``SearchConfig.primary_fusion`` picks how they meet:

* ``blend`` — per angle, min-max normalise each voter over the angle's candidates and
  add them with ``dense_weight`` / ``bm25_weight``; angles are averaged.
* ``rrf`` — weighted RRF, sum of w / (k + rank) over both voters and every angle.
* ``dense_rrf`` — the seed: RRF over angles of the dense ranking only.

A voter's candidates are its ``primary_depth`` best; the pool's literal 06b matches are
always candidates too (so the guaranteed slot has a score to rank them by). A slide no
voter retrieved scores 0 and is not a candidate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from core.fusion import min_max_array, ranks_of, rrf_terms, top_positions
from core.lexical import BM25Index
from core.text import ENGLISH_STOPWORDS, FOREIGN_SHARE, asks_for_a_fact, foreign_share, tokenize
from slidesearch.config import SearchConfig
from slidesearch.library.view import LibraryView
from slidesearch.pipeline.state import Candidate, SearchState
from slidesearch.roles import asked_roles

FUSIONS = ("blend", "rrf", "dense_rrf")


@dataclass(frozen=True)
class Fusion:
    """How the two voters of one angle meet (``SearchConfig``: primary_fusion, primary_depth, weights, rrf_k)."""

    method: str
    depth: int
    dense_weight: float
    bm25_weight: float
    rrf_k: int
    brief_dense_share: float | None = None
    brief_max_words: int = 8
    unreadable_lexical: float = 0.0

    def __post_init__(self) -> None:
        if self.method not in FUSIONS:
            raise ValueError(f"unknown fusion {self.method!r}; choose one of {', '.join(FUSIONS)}")
        if self.depth < 1:
            raise ValueError(f"fusion depth must be at least 1, got {self.depth}")
        if self.dense_weight < 0 or self.bm25_weight < 0 or self.dense_weight + self.bm25_weight <= 0:
            raise ValueError("the voter weights must be non-negative with a positive sum")
        if self.rrf_k < 0:
            raise ValueError(f"RRF k must be non-negative, got {self.rrf_k}")
        if self.brief_dense_share is not None and not 0 <= self.brief_dense_share <= 1:
            raise ValueError(f"brief_dense_share must be in [0, 1], got {self.brief_dense_share}")
        if not 0 <= self.unreadable_lexical <= 1:
            raise ValueError(f"unreadable_lexical must be in [0, 1], got {self.unreadable_lexical}")

    def weights(self, question: bool) -> tuple[float, float]:
        """(dense, BM25) weights for one angle: a topical brief's follow ``brief_dense_share`` when it is set."""
        if question or self.brief_dense_share is None:
            return self.dense_weight, self.bm25_weight
        total = self.dense_weight + self.bm25_weight
        return self.brief_dense_share * total, (1.0 - self.brief_dense_share) * total

    @classmethod
    def from_config(cls, config: SearchConfig) -> Fusion:
        return cls(config.primary_fusion, config.primary_depth, config.dense_weight, config.bm25_weight, config.rrf_k,
                   config.brief_dense_share, config.brief_max_words, config.unreadable_lexical)

    def plain_blend(self, angle: str) -> bool:
        """Whether ``angle`` takes the plain weights: a factoid question, or a statement too long to be a brief.

        A brief names a topic in a few of the asker's words, which the slide need not share; a
        factoid question states the fact it asks about in the slide's words, and a long statement of need
        (CISI's queries) reads like a document, where BM25's word matches are evidence. "Why junior
        engineers are quitting" asks about a topic, not for a fact, so it is a brief.
        """
        return asks_for_a_fact(angle) or len(tokenize(angle, ENGLISH_STOPWORDS)) > self.brief_max_words


def pool_dense_scores(vectors: NDArray[np.float32], pool: NDArray[np.int64], queries: NDArray[np.float32]) -> NDArray[Any]:
    """Exact cosine of every pool slide with every query row: shape (len(pool), len(queries)).

    Plain numpy rather than a FAISS index with an ID selector: a selector still visits every
    vector of the index and tests each id through a callback, outside BLAS, while
    ``vectors[pool] @ q`` is one contiguous matrix product (measured about 10x faster).
    When the pool is most of the library, one product over all rows then a gather is
    cheaper than copying the pool's rows first.
    """
    if pool.size == 0:
        return np.zeros((0, queries.shape[0]), dtype=np.float32)
    if pool.size * 2 > vectors.shape[0]:
        return (np.asarray(vectors) @ queries.T)[pool]
    return np.asarray(vectors[pool]) @ queries.T


def fuse_angles(
    dense: NDArray[Any], bm25: NDArray[Any], always: NDArray[np.int64], cfg: Fusion,
    questions: Sequence[bool] = (),
) -> dict[int, float]:
    """Primary score per pool position from per-angle dense and BM25 scores (columns = angles)."""
    fused, _ = fuse_angles_by_angle(dense, bm25, always, cfg, questions)
    return fused


def fuse_angles_by_angle(
    dense: NDArray[Any], bm25: NDArray[Any], always: NDArray[np.int64], cfg: Fusion,
    questions: Sequence[bool] = (), unreadable: NDArray[np.bool_] | None = None,
) -> tuple[dict[int, float], dict[int, int]]:
    """``fuse_angles`` plus, per position, the angle that contributed most to its score.

    ``questions[a]`` says angle ``a`` is a question (missing: taken as one, the plain weights);
    a topical brief's angle weighs its voters by ``Fusion.weights``. ``unreadable`` marks the positions
    whose dense voice is silenced (the encoder cannot read the slide): there BM25 also speaks for
    ``cfg.unreadable_lexical`` of the dense voter's weight, so a Chinese slide stating "LSTM" and "ARIMA"
    is not held to the BM25 voter's tenth of a brief's score.
    """
    fused: dict[int, float] = {}
    best: dict[int, tuple[float, int]] = {}
    n_angles = dense.shape[1]
    use_bm25 = cfg.method != "dense_rrf" and cfg.bm25_weight > 0
    for a in range(n_angles):
        d, b = dense[:, a], bm25[:, a]
        dense_weight, bm25_weight = cfg.weights(questions[a] if a < len(questions) else True)
        parts = [top_positions(d, cfg.depth), always]
        if use_bm25:
            parts.append(top_positions(b, cfg.depth, positive_only=True))
        cand = np.unique(np.concatenate(parts))
        if cand.size == 0:
            continue
        # BM25's weight per candidate: its own, plus the dense voter's share on a slide the encoder cannot read.
        lexical_weight = bm25_weight + (cfg.unreadable_lexical * dense_weight * unreadable[cand]
                                        if unreadable is not None else 0.0)
        if cfg.method == "blend":
            score = dense_weight * min_max_array(d[cand])
            if use_bm25 and b[cand].max() > 0:
                score += lexical_weight * min_max_array(b[cand])
            score /= n_angles
        else:
            weight = 1.0 if cfg.method == "dense_rrf" else dense_weight
            score = rrf_terms(ranks_of(d, cand), weight, cfg.rrf_k)
            if use_bm25:
                hit = b[cand] > 0
                score += np.where(hit, lexical_weight * rrf_terms(ranks_of(b, cand), 1.0, cfg.rrf_k), 0.0)
        for pos, value in zip(cand.tolist(), score.tolist(), strict=True):
            fused[pos] = fused.get(pos, 0.0) + value
            if value > best.get(pos, (0.0, -1))[0]:
                best[pos] = (value, a)
    kept = {pos: s for pos, s in fused.items() if s > 0}
    return kept, {pos: best[pos][1] for pos in kept}


def bm25_columns(bm25: BM25Index, texts: list[str], pool: NDArray[np.int64]) -> NDArray[np.float32]:
    """BM25 score of every pool slide for each text: shape (len(pool), len(texts))."""
    cols = [bm25.scores(bm25.analyse(t))[pool] for t in texts]
    if not cols:
        return np.zeros((pool.size, 0), dtype=np.float32)
    return np.stack(cols, axis=1)


def deck_context(
    deck_codes: tuple[NDArray[np.int32], NDArray[np.int64]], weight: float, pool: NDArray[np.int64],
    fused: dict[int, float],
) -> dict[int, float]:
    """``weight`` x the mean primary score of the slide's deck-mates (0 for a deck-mate with none).

    A deck is about one subject, so a slide whose deck-mates also match the brief is more
    likely on topic than an isolated hit (the passage-retrieval practice of mixing in the
    document's score). ``deck_codes`` is each slide's deck code and every deck's size.
    """
    codes, sizes = deck_codes
    totals: dict[int, float] = {}
    for pos, score in fused.items():
        deck = int(codes[pool[pos]])
        totals[deck] = totals.get(deck, 0.0) + score
    lift = {}
    for pos, score in fused.items():
        deck = int(codes[pool[pos]])
        mates = int(sizes[deck]) - 1
        if mates > 0:
            lift[pos] = weight * (totals[deck] - score) / mates
    return lift


class DenseScores:
    """07: the cosine of every pool slide with each angle and each expansion term, in one matrix product.

    The expansion terms ride along in the product, so the vectors are read once per request
    (reading 122k x d floats is the dense voter's whole cost); 07a reads the angle columns,
    07b the term columns.
    """

    name = "07 dense scores"
    reads: ClassVar[frozenset[str]] = frozenset({"pool", "query_vectors", "expansion"})
    writes: ClassVar[frozenset[str]] = frozenset({"angle_cosines", "term_cosines"})
    output: ClassVar[str | None] = None

    def __init__(self, view: LibraryView) -> None:
        self.view = view

    def run(self, state: SearchState) -> SearchState:
        if state.pool is None or state.query_vectors is None:
            raise ValueError("07 needs the pool (06) and the angle vectors (03)")
        queries = state.query_vectors
        terms = self.view.embed(list(state.expansion)) if state.expansion else queries[:0]
        product = pool_dense_scores(self.view.vectors, state.pool, np.vstack([queries, terms]))
        return replace(state, angle_cosines=product[:, : len(queries)],
                       term_cosines=product[:, len(queries):] if state.expansion else None)


_LAST = 1e-6
"""The primary score of a candidate kept whatever the voters say (a slide of the role the brief asks for) when
both voters put it at their lowest: above 0, so it stays, and under any slide that matched."""


class PrimaryPass:
    """07a: exact dense + BM25 per angle within the pool, fused; every slide with a score becomes a candidate."""

    name = "07a primary"
    reads: ClassVar[frozenset[str]] = frozenset({"pool", "angles", "angle_cosines", "entity_rows"})
    writes: ClassVar[frozenset[str]] = frozenset({"primary"})
    output: ClassVar[str | None] = "primary"

    def __init__(self, view: LibraryView, fusion: Fusion, deck_context: float) -> None:
        if deck_context < 0:
            raise ValueError(f"deck_context must be non-negative, got {deck_context}")
        self.view, self.fusion, self.deck_context = view, fusion, deck_context

    def run(self, state: SearchState) -> SearchState:
        if state.pool is None or state.angle_cosines is None:
            raise ValueError("07a needs the pool (06) and the dense scores (07)")
        pool, dense = state.pool, state.angle_cosines
        unreadable = self.view.unreadable[pool]
        if unreadable.any() and dense.size:
            # The encoder cannot read these slides: their cosine is noise, so they sit at the angle's
            # lowest and only BM25 can lift them.
            dense = np.where(unreadable[:, None], dense.min(axis=0, keepdims=True), dense)
        bm25 = bm25_columns(self.view.bm25, list(state.angles), pool)
        for a, angle in enumerate(state.angles):
            if foreign_share(angle) > FOREIGN_SHARE and bm25.shape[0] and bm25[:, a].max() > 0:
                # A brief the encoder cannot read: its vector is noise, so BM25 (which reads any script) answers.
                dense = dense.copy()
                dense[:, a] = 0.0
        always = np.flatnonzero(np.isin(pool, np.fromiter(state.entity_rows, dtype=np.int64)))
        asked = asked_roles(state.angles)
        of_role = np.zeros(0, dtype=np.int64)
        if asked:
            # "agenda slide": every slide of that role in the pool is a candidate, as a literal name's are. Its
            # words need not say so ("SUMÁRIO", "Table of contents" never met the voters' top for "agenda").
            of_role = np.flatnonzero(np.isin(self.view.role_array[pool], sorted(asked)))
            always = np.union1d(always, of_role)
        questions = [self.fusion.plain_blend(a) for a in state.angles]
        fused, angle_of = fuse_angles_by_angle(dense, bm25, always, self.fusion, questions,
                                               unreadable if unreadable.any() else None)
        for pos in of_role.tolist():  # the voters' weakest slide scores 0, which would drop it: keep it last
            if pos not in fused:
                fused[pos], angle_of[pos] = _LAST, int(np.argmax(dense[pos])) if dense.shape[1] else 0
        lift = deck_context(self.view.deck_codes, self.deck_context, pool, fused) if self.deck_context > 0 else {}
        fused = {pos: score + lift.get(pos, 0.0) for pos, score in fused.items()}
        sections = self.view.section_names
        candidates = tuple(
            Candidate(row=int(pool[pos]), section=sections[int(pool[pos])], primary=score, fusion=score, score=score,
                      angle=angle_of[pos], cosine=float(dense[pos, angle_of[pos]]), deck=lift.get(pos, 0.0))
            for pos, score in sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))
        )
        return replace(state, primary=candidates)
