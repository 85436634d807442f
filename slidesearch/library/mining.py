"""Corpus mining, pure: the rarity table, the slide x term matrix, the taxonomy and the expansion clusters.

Everything here takes plain data (documents, deck ids) and returns new data; the library
calls it once when it is built. The constants are the seed's sizes at 122,623 slides.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from core.rarity import DocFreqTable
from core.text import ENGLISH_STOPWORDS, GENERIC_BUSINESS_TERMS, ngrams, tokenize

#: Phrases in the rarity table span only content words: "payment of the capital call" holds "capital call".
RARITY_STOPWORDS = ENGLISH_STOPWORDS

#: The seed's curated dictionary had 96 keys / 164 terms at 122,623 slides; keys are capped near that.
MAX_CLUSTER_KEYS = 100
MAX_TERMS_PER_CLUSTER = 3
#: Cluster keys and terms come from the most frequent taxonomy terms (a dense co-occurrence matrix of this side).
CLUSTER_CANDIDATES = 2_000
#: The seed compared queries against about 5,600 taxonomy terms.
MAX_TAXONOMY_TERMS = 5_600

Progress = Callable[[str, int, int], None]
"""``progress(stage, done, total)``, called as the slow build stages advance."""


@dataclass
class TermMatrix:
    """Which distinctive terms occur on which slide: a CSR matrix (slides x terms) plus the term list."""

    terms: list[str]
    matrix: Any
    in_titles: Counter[str]

    @property
    def df(self) -> NDArray[np.int64]:
        return np.bincount(self.matrix.indices, minlength=len(self.terms))


def _is_distinctive(term: str) -> bool:
    """A term worth mining: no stopword at either end, not only generic business words, no number, 4+ characters."""
    words = term.split()
    if {words[0], words[-1]} & ENGLISH_STOPWORDS or all(w in GENERIC_BUSINESS_TERMS for w in words):
        return False
    if any(w.isdigit() for w in words) or len(set(words)) != len(words):
        return False
    return len(term) >= 4


def mine_terms(documents: Sequence[str], progress: Progress | None = None) -> tuple[DocFreqTable, TermMatrix]:
    """One pass over the slides: the rarity table and the slide x distinctive-term matrix.

    Words are counted once per slide; 2-3-word phrases are built from the content words
    (stopwords dropped) of one line at a time, so a phrase never spans two bullets
    ("payment of the capital call" holds "capital call"; "...reporting\nQ1 results" does
    not make "reporting q1"). The first line of each document is its title; how many titles
    hold each distinctive term is kept too (cluster keys must be title material).
    """
    from scipy import sparse

    words: Counter[str] = Counter()
    phrases: Counter[str] = Counter()
    term_id: dict[str, int] = {}
    distinctive: dict[str, bool] = {}
    in_titles: Counter[str] = Counter()
    indices: array[int] = array("i")
    indptr: array[int] = array("q", [0])
    step = 5_000
    if progress:
        progress("mine", 0, len(documents))
    for start in range(0, len(documents), step):
        for doc in documents[start : start + step]:
            doc_words: set[str] = set()
            doc_phrases: set[str] = set()
            for number, line in enumerate(doc.split("\n")):
                tokens = tokenize(line)
                doc_words.update(tokens)
                line_phrases = set(ngrams([t for t in tokens if t not in RARITY_STOPWORDS], (2, 3)))
                doc_phrases.update(line_phrases)
                if number == 0:
                    in_titles.update(t for t in set(tokens) | line_phrases if len(t) >= 4)
            words.update(doc_words)
            phrases.update(doc_phrases)
            for term in doc_words | doc_phrases:
                keep = distinctive.get(term)
                if keep is None:
                    keep = distinctive[term] = _is_distinctive(term)
                if keep:
                    indices.append(term_id.setdefault(term, len(term_id)))
            indptr.append(len(indices))
        if progress:
            progress("mine", min(start + step, len(documents)), len(documents))
    rarity = DocFreqTable(n_docs=len(documents), words=words, phrases=phrases)
    data = np.ones(len(indices), dtype=np.float32)
    matrix = sparse.csr_matrix(
        (data, np.frombuffer(indices, dtype=np.int32), np.frombuffer(indptr, dtype=np.int64)),
        shape=(len(documents), len(term_id)),
    )
    return rarity, TermMatrix(terms=list(term_id), matrix=matrix, in_titles=in_titles)


def mine_taxonomy(terms: TermMatrix, rarity: DocFreqTable, limit: int = MAX_TAXONOMY_TERMS) -> list[str]:
    """The library's topic vocabulary: distinctive words and phrases that recur and stand as units, most frequent first.

    A term qualifies when it appears in at least ``max(3, n / 20,000)`` slides (recurring,
    not a one-off) and at most 5% of them (a topic, not boilerplate); small libraries,
    where one topic can fill a large share, allow up to 50 slides but never half of them.
    A phrase must be cohesive: on at least half the slides of its most frequent
    non-generic word (so "money laundering" and "customer segmentation" stay, while a
    fragment like "accounts large" that straddles two terms goes).
    A word that nearly always occurs inside one phrase (90% of its slides) gives way to the
    phrase ("laundering" to "money laundering"). Up to 5,600 terms, the seed's taxonomy size.
    """
    n = max(terms.matrix.shape[0], 1)
    min_df, max_df = max(3, n // 20_000), min(max(int(0.05 * n), 50), n // 2)
    df = terms.df
    ok = [j for j in np.flatnonzero((df >= min_df) & (df <= max_df)).tolist()]
    kept: list[int] = []
    subsumed: set[str] = set()
    for j in ok:
        words = terms.terms[j].split()
        if len(words) == 1:
            kept.append(j)
            continue
        commonest = max(rarity.words.get(w, 0) for w in words if w not in GENERIC_BUSINESS_TERMS)
        if commonest and df[j] >= 0.5 * commonest:
            kept.append(j)
            subsumed.update(w for w in words if df[j] >= 0.9 * rarity.words.get(w, 0))
    order = sorted(
        (j for j in kept if terms.terms[j] not in subsumed), key=lambda j: (-int(df[j]), terms.terms[j])
    )
    return [terms.terms[j] for j in order[:limit]]


def mine_clusters(
    terms: TermMatrix,
    candidates: Sequence[str],
    groups: Sequence[str] | None = None,
    max_keys: int = MAX_CLUSTER_KEYS,
    max_terms: int = MAX_TERMS_PER_CLUSTER,
    min_confidence: float = 0.5,
    min_lift: float = 3.0,
    collocation: float = 0.9,
    min_key_slides: int | None = None,
) -> dict[str, list[str]]:
    """Curated expansion clusters: each trigger term with the distinctive terms that co-occur with it.

    Association is measured over ``groups`` (the slide's deck: a fraud deck holds fraud
    terms throughout, while a cover-slide line like "Confidential" sits in every deck and
    so co-occurs with nothing in particular), or over slides when no groups are given.
    For candidate terms k and t with frequencies df and co-occurrence c, t joins k's
    cluster when t is in at least ``min_confidence`` of k's groups (c / df(k)), the pair is
    at least ``min_lift`` times more frequent than chance (c N / (df(k) df(t))), the two
    share no word (no "fraud" -> "fraud detection"), and they are not one fixed phrase
    split in two (on the same slides, each on at least ``collocation`` of the other's:
    "co founder" and the name that always follows it expand nothing). Terms are ranked by
    confidence x log lift, at most ``max_terms`` per key.

    A key is a topic a rep might type: it appears in slide titles (at least 3) and on at
    least ``min_key_slides`` slides (default ``max(10, N / 5,000)``). Keys are ranked by
    the summed score of their terms and taken while they add a new topic (a key already
    inside a chosen cluster, or sharing two terms with one, is a variant), up to
    ``max_keys`` (the seed's dictionary had 96 keys / 164 terms).
    """
    from scipy import sparse

    index = {term: j for j, term in enumerate(terms.terms)}
    cols = [index[t] for t in candidates if t in index]
    if not cols:
        return {}
    names = [terms.terms[j] for j in cols]
    sub = terms.matrix[:, cols].tocsr()
    slide_co = (sub.T @ sub).toarray()
    slide_df = np.diag(slide_co).copy()
    if groups is not None:
        group_of = {g: i for i, g in enumerate(dict.fromkeys(groups))}
        rows = np.fromiter((group_of[g] for g in groups), dtype=np.int64, count=len(groups))
        member = sparse.csr_matrix(
            (np.ones(len(rows), dtype=np.float32), (rows, np.arange(len(rows)))),
            shape=(len(group_of), len(rows)),
        )
        grouped = (member @ sub).tocsr()
        grouped.data[:] = 1.0
        co = (grouped.T @ grouped).toarray()
        n = float(len(group_of))
    else:
        co, n = slide_co, float(sub.shape[0])
    df = np.diag(co).copy()
    key_floor = min_key_slides if min_key_slides is not None else max(10, terms.matrix.shape[0] // 5_000)
    word_sets = [set(name.split()) for name in names]
    scored: list[tuple[float, int, list[int]]] = []
    for k, key in enumerate(names):
        if slide_df[k] < key_floor or terms.in_titles[key] < 3:
            continue
        confidence = co[k] / df[k]
        lift = co[k] * n / np.maximum(df[k] * df, 1.0)
        fixed_phrase = (slide_co[k] >= collocation * slide_df[k]) & (slide_co[k] >= collocation * slide_df)
        ok = (confidence >= min_confidence) & (lift >= min_lift) & ~fixed_phrase
        ok[k] = False
        score = confidence * np.log(np.maximum(lift, 1.0))
        chosen: list[int] = []
        candidates_ok = np.flatnonzero(ok)
        for t in candidates_ok[np.argsort(-score[candidates_ok], kind="stable")]:
            if word_sets[t] & word_sets[k] or any(word_sets[t] & word_sets[c] for c in chosen):
                continue
            chosen.append(int(t))
            if len(chosen) == max_terms:
                break
        if chosen:
            scored.append((float(score[chosen].sum()), k, chosen))
    scored.sort(key=lambda item: (-item[0], names[item[1]]))
    clusters: dict[str, list[str]] = {}
    covered: set[int] = set()
    taken: list[set[int]] = []
    for _, k, chosen in scored:
        if k in covered or any(len(set(chosen) & other) >= 2 for other in taken):
            continue
        clusters[names[k]] = [names[t] for t in chosen]
        covered.update(chosen)
        covered.add(k)
        taken.append(set(chosen))
        if len(clusters) == max_keys:
            break
    return clusters

