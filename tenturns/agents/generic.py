"""The generic agent: the retrieval line of attack the seed grew first, kept as a selectable agent.

Per turn (``shared/specs/tenturns.md``, "The agent", step 2):

1. ``ReadShopper`` — the shopper's stated requirements so far become the query;
2. ``Retrieve`` — a BM25 route (``core.lexical``) and a dense route
   (``core.embed``) over the whole catalog, fused by weighted RRF (``core.fusion``);
3. ``FeatureRerank`` — a deterministic linear reranker over the fused
   shortlist: fused score, facet agreement (``facets.py``), query-token
   coverage and the rating-count prior;
4. ``AskByInformationGain`` — ask about the facet with the largest expected
   information gain over the reranked candidates, each attribute once.

It shows ten items every turn and never reads the shelf label.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field

from core.embed import Embedder, make_embedder
from core.fusion import rrf
from core.lexical import BM25Index, analyse
from core.settings import get_settings
from core.text import ENGLISH_STOPWORDS, punctuation_insensitive
from tenturns.agents.base import BaseAgent
from tenturns.agents.dialogue import Kind, ShelfMatcher, read_opening, read_reply
from tenturns.agents.facets import ASK_FOR_FACET, FacetIndex, query_facets
from tenturns.agents.phrase_index import PhraseIndex, phrase_index
from tenturns.catalog import Catalog, Product, searchable_text

EMBED_CHARS = 400
"""Dense text per product: title plus the opening features, cut where a static embedder's average still carries the topic."""
QUERY_CACHE = 1024
LARGE_CATALOG = 5_000
"""Above this many products the default embedder is ``fast``: minilm embeds about 75 texts/s here (11 min for 50k)."""


class GenericConfig(BaseModel):
    """Tunables of the generic agent; defaults are the measured choices (docs/EXPERIMENT_LOG.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    embedder: str | None = Field(default=None, description="None: settings.embedder, or fast above 5,000 products.")
    dense: bool = Field(default=True, description="Use the dense route at all.")
    route_depth: int = Field(default=200, description="Candidates taken from each route before fusion.")
    fusion_weights: tuple[float, float] = Field(default=(1.0, 0.5), description="RRF weights of (BM25, dense).")
    facet_weight: float = Field(default=0.3, description="Reranker weight of facet agreement (per facet).")
    coverage_weight: float = Field(default=1.0, description="Reranker weight of the query-token coverage share.")
    prior_weight: float = Field(default=1.0, description="Reranker weight of the rating-count prior.")
    ask_pool: int = Field(default=50, description="Candidates the information-gain question is computed over.")
    min_gain_bits: float = Field(default=0.1, description="Below this expected gain no facet is worth a question.")


def product_text_for_embedding(product: Product) -> str:
    return f"{product.title}. {' '.join(product.features[:3])}"[:EMBED_CHARS]


class LexicalRoute:
    """BM25 over every product's searchable text."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.bm25 = BM25Index.build([analyse(searchable_text(p)) for p in catalog.products])

    def ranking(self, query: str, k: int) -> NDArray[np.int64]:
        rows, _ = self.bm25.top_k(analyse(query), k)
        return rows

    def shortlist(self, query: str, k: int) -> NDArray[np.int64]:
        """The best ``k`` rows for ``query``; catalog order fills up when fewer than ``k`` score at all."""
        rows = self.ranking(query, k)
        if len(rows) < k:
            rest = np.setdiff1d(np.arange(len(self.catalog), dtype=np.int64), rows)[: k - len(rows)]
            rows = np.concatenate([rows, rest])
        return rows


class DenseRoute:
    """Cosine similarity to L2-normalised product vectors, cached on disk per (catalog sha256, embedder)."""

    def __init__(self, catalog: Catalog, embedder: Embedder, cache_dir: Path) -> None:
        self.embedder = embedder
        self._queries: dict[str, NDArray[np.float32]] = {}
        path = cache_dir / f"vectors-{(catalog.sha256 or 'memory')[:16]}-{len(catalog)}-{embedder.name}.npy"
        if catalog.sha256 and path.is_file():
            self.vectors = np.load(path, mmap_mode="r")
        else:
            self.vectors = embedder.encode([product_text_for_embedding(p) for p in catalog.products])
            if catalog.sha256:
                cache_dir.mkdir(parents=True, exist_ok=True)
                temporary = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npy")
                np.save(temporary, self.vectors)
                temporary.replace(path)

    def query_vector(self, query: str) -> NDArray[np.float32]:
        """The query's vector; a session repeats its query on turns that disclose nothing, so recent ones are kept."""
        vector = self._queries.get(query)
        if vector is None:
            if len(self._queries) >= QUERY_CACHE:
                self._queries.clear()
            vector = self._queries[query] = self.embedder.encode([query])[0]
        return vector

    def ranking(self, query: str, k: int) -> NDArray[np.int64]:
        similarity = np.asarray(self.vectors @ self.query_vector(query), dtype=np.float32)
        k = min(k, len(similarity))
        top = np.argpartition(-similarity, k - 1)[:k]
        return top[np.lexsort((top, -similarity[top]))].astype(np.int64)


@dataclass(frozen=True)
class GenericTurn:
    """What the generic agent's stages pass along."""

    memory: dict[str, Any]
    query: str = ""
    candidates: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    fused: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    scores: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    ask: str | None = None


class ReadShopper:
    """Stage 1: every requirement the shopper has stated, in order, is the query."""

    def __init__(self) -> None:
        self.matcher = ShelfMatcher(())

    def run(self, state: GenericTurn, message: str) -> GenericTurn:
        memory = state.memory
        reading = read_reply(message) if len(memory["messages"]) > 1 else read_opening(message, self.matcher)
        if reading.kind == Kind.NOTHING_LEFT and reading.attribute:
            memory["exhausted"].add(reading.attribute)
        for phrase in reading.phrases:
            if phrase not in memory["phrases"]:
                memory["phrases"].append(phrase)
        return replace(state, query=" ".join(memory["phrases"]))


class Retrieve:
    """Stage 2: BM25 and dense rankings fused with weighted RRF (k = 60)."""

    def __init__(self, lexical: LexicalRoute, dense: DenseRoute | None, depth: int, weights: tuple[float, float]) -> None:
        self.lexical, self.dense, self.depth, self.weights = lexical, dense, depth, weights

    def run(self, state: GenericTurn) -> GenericTurn:
        rankings = [self.lexical.ranking(state.query, self.depth).tolist()]
        weights = [self.weights[0]]
        if self.dense is not None:
            rankings.append(self.dense.ranking(state.query, self.depth).tolist())
            weights.append(self.weights[1])
        fused = rrf(rankings, weights=weights)
        if not fused:
            rows = np.arange(min(self.depth, len(self.lexical.catalog)), dtype=np.int64)
            return replace(state, candidates=rows, fused=np.zeros(len(rows)))
        rows = np.fromiter(fused.keys(), dtype=np.int64, count=len(fused))
        return replace(state, candidates=rows, fused=np.fromiter(fused.values(), dtype=np.float64, count=len(fused)))


class FeatureRerank:
    """Stage 3: a fixed linear blend of fused score (min-max), facet agreement, token coverage and prior."""

    def __init__(self, facets: FacetIndex, index: PhraseIndex, config: GenericConfig) -> None:
        self.facets, self.index, self.config = facets, index, config

    def run(self, state: GenericTurn) -> GenericTurn:
        rows, fused = state.candidates, state.fused
        span = float(fused.max() - fused.min()) if len(fused) else 0.0
        fused_norm = (fused - fused.min()) / span if span > 0 else np.ones(len(fused))
        wanted = query_facets(state.query, self.facets.brands(rows))
        agreement = self.facets.agreement(rows, wanted)
        tokens = sorted({t for t in punctuation_insensitive(state.query).split() if t not in ENGLISH_STOPWORDS})
        known = [self.index.vocab[t] for t in tokens if t in self.index.vocab]
        coverage = np.zeros(len(rows))
        if known:
            coverage = np.asarray(self.index.matrix[rows][:, known].sum(axis=1)).ravel() / len(tokens)
        scores = (fused_norm + self.config.facet_weight * agreement + self.config.coverage_weight * coverage
                  + self.config.prior_weight * self.index.prior[rows])
        order = np.lexsort((rows, -scores))
        return replace(state, candidates=rows[order], scores=scores[order])


class AskByInformationGain:
    """Stage 4: the not-yet-asked facet whose value would tell most about the target, or none."""

    def __init__(self, facets: FacetIndex, pool: int, min_gain: float) -> None:
        self.facets, self.pool, self.min_gain = facets, pool, min_gain

    def run(self, state: GenericTurn) -> GenericTurn:
        rows, scores = state.candidates[: self.pool], state.scores[: self.pool]
        if len(rows) == 0:
            return replace(state, ask=None)
        weights = np.exp(scores - scores.max())
        gains = self.facets.information_gain(rows, weights)
        asked = state.memory["asked"]
        options = [(gain, facet) for facet, gain in gains.items() if ASK_FOR_FACET[facet] not in asked]
        best = max(options, default=(0.0, ""), key=lambda gf: (gf[0], -list(gains).index(gf[1])))
        ask = ASK_FOR_FACET[best[1]] if best[0] >= self.min_gain else None
        if ask is None and "feature" not in asked:
            ask = "feature"
        if ask is not None:
            asked.add(ask)
        return replace(state, ask=ask)


class GenericAgent(BaseAgent):
    """BM25 + dense + RRF + facets + feature reranker + information-gain questions over the whole catalog."""

    def __init__(self, catalog_path: str | Path, config: GenericConfig | None = None, embedder: Embedder | None = None
                 ) -> None:
        super().__init__(catalog_path)
        self.config = config or GenericConfig()
        settings = get_settings()
        self.index = phrase_index(self.catalog)
        self.facets = FacetIndex(self.catalog)
        self.lexical = LexicalRoute(self.catalog)
        self.dense: DenseRoute | None = None
        if self.config.dense:
            if embedder is None:
                name = self.config.embedder or (settings.embedder if len(self.catalog) <= LARGE_CATALOG else "fast")
                embedder = make_embedder(name)
            self.dense = DenseRoute(self.catalog, embedder, settings.cache_dir / "turns")
        self.read = ReadShopper()
        self.stages: list[Retrieve | FeatureRerank | AskByInformationGain] = [
            Retrieve(self.lexical, self.dense, self.config.route_depth, self.config.fusion_weights),
            FeatureRerank(self.facets, self.index, self.config),
            AskByInformationGain(self.facets, self.config.ask_pool, self.config.min_gain_bits),
        ]

    def reset(self, session_id: str, user_profile: dict[str, Any] | None) -> None:
        super().reset(session_id, user_profile)
        self.sessions[session_id].update(phrases=[], asked=set(), exhausted=set())

    def respond(self, session_id: str, user_message: str, turn: int, top_k: int = 10) -> dict[str, Any]:
        memory = self.session(session_id)
        memory["messages"].append(user_message)
        state = self.read.run(GenericTurn(memory=memory), user_message or "")
        for stage in self.stages:
            state = stage.run(state)
        products = self.catalog.products
        shown = [(int(r), float(s)) for r, s in zip(state.candidates[:top_k], state.scores[:top_k], strict=True)]
        message = f"Here are my top {len(shown)} matches."
        if state.ask:
            message += f" Could you tell me about the {state.ask.replace('_', ' ')} you want?"
        return {
            "message": message,
            "ask_attribute": state.ask,
            "recommendations": [{"parent_asin": products[r].parent_asin, "score": round(s, 6)} for r, s in shown],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0},
        }
