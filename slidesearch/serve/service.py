"""What every serving channel shares: one loaded engine, the server's universe scope, and the usage log.

The MCP server, the HTTP API and the page all call a ``SlideService``, so the
scope rule lives in one place. A scoped server (``--universes``) serves an engine
over ``Library.within(scope)``: the library of those universes alone, mined again,
so it is indistinguishable from a library that holds only them in every field of
every response and error (coverage notes, expansion terms, the detected client,
rare names, the unknown-universe and unknown-id errors, health and stats): a
universe or slide id outside the scope is simply unknown. The universes a caller
asks for are resolved within that library on every call (the seed's bug was a
scope dropped on one tool path), and every card of a response is checked against
the scope again before it leaves, so no path can return an out-of-scope slide. The engine
is loaded once and only read; the service holds no per-request state beyond the
counters behind ``/stats`` (guarded by a lock) and the usage log (which has its own, and
whose writes run on a thread of their own so a search never waits on the database).
"""

from __future__ import annotations

import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from core.settings import get_settings
from slidesearch.assemble import AssembleResult, assemble, pick_cards
from slidesearch.engine import SlideSearch
from slidesearch.library import OutOfScopeError, UnknownUniverseError
from slidesearch.request import Query, RequestError, RequestPolicy
from slidesearch.response import Explanation, SearchResponse
from slidesearch.sections import SECTIONS
from slidesearch.serve.usage_log import UsageLog
from slidesearch.thumbnails import ThumbnailStore

#: The input policy of the default configuration; a service uses its engine's own (``SlideService.policy``).
DEFAULT_POLICY = RequestPolicy.of()

#: The engine caps a response at 50 cards in all, so a section never needs more (kept for importers).
MAX_TOP_PER_GROUP = DEFAULT_POLICY.max_top_per_group
#: "Why this?" is asked for the visible cards, at most the 50 of one response; twice that leaves room.
MAX_EXPLAIN_IDS = 100
#: Latencies kept for the /stats percentiles: the most recent requests, enough for a stable p99.
LATENCY_WINDOW = 2_000


#: A request the service refuses, by the input policy or the scope; the message says what was wrong and what
#: is allowed. The policy's own error under the name the channels have always caught.
ServiceError = RequestError


def clean_query(value: Query) -> Query:
    """The input policy's query check (``RequestPolicy.query``): blanks dropped, empty or not text refused."""
    return DEFAULT_POLICY.query(value)


def thumbnail_url(slide_id: str) -> str:
    """The HTTP address of a slide's thumbnail (``?size=large`` for the big view)."""
    return f"/slides/{quote(slide_id, safe='')}/thumbnail.png"


def _rendered_thumbnails() -> ThumbnailStore | None:
    """The library's thumbnail store when ``seek slides render`` has made one (a server never creates it)."""
    root = get_settings().slides_dir / "thumbnails"
    return ThumbnailStore(root) if (root / "renders.sqlite").exists() else None


class SlideService:
    """One engine shared read-only by every request of every channel, with the scope and the usage log."""

    def __init__(self, engine: SlideSearch, *, scope: Sequence[str] | None = None,
                 usage_log: UsageLog | None = None, index_path: Path | None = None,
                 thumbnails: ThumbnailStore | None = None,
                 freshness_report: Callable[[], dict[str, Any]] | None = None) -> None:
        """``freshness_report`` says how current a library that is not an index on disk is (a published one)."""
        self.freshness_report = freshness_report
        self.thumbnails = thumbnails if thumbnails is not None else _rendered_thumbnails()
        self.library = engine.library
        self.index_path = index_path
        self.usage_log = usage_log
        self.policy = RequestPolicy.of(engine.config)
        self.scope: list[str] | None = self._canonical(scope, "--universes") if scope else None
        # The scope is named against the whole library; from here on the service sees only the scope's library.
        self.engine = engine.within(self.scope) if self.scope else engine
        self.library = self.engine.library
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()
        self._latencies: list[float] = []
        self.started = time.time()

    def replaced(self, engine: SlideSearch,
                 freshness_report: Callable[[], dict[str, Any]] | None = None) -> SlideService:
        """A service over ``engine`` with this one's scope, usage log and thumbnails, counting into the same /stats.

        A server that follows a live library swaps to it; requests in flight finish on this one.
        """
        successor = SlideService(engine, scope=self.scope, usage_log=self.usage_log, index_path=self.index_path,
                                 thumbnails=self.thumbnails, freshness_report=freshness_report)
        successor._lock, successor._counts, successor._latencies = self._lock, self._counts, self._latencies
        successor.started = self.started
        return successor

    # ----------------------------------------------------------------- scope

    def _canonical(self, universes: Sequence[str], what: str) -> list[str] | None:
        """The library's spelling of ``universes`` (None when only blanks); an unknown one is a ServiceError."""
        try:
            resolved = self.library.resolve_universes([self.policy.text(u) or "" for u in universes])
        except UnknownUniverseError as exc:
            raise ServiceError(
                f"unknown universe(s) in {what}: {', '.join(exc.unknown)}; the library has {', '.join(exc.known)}"
            ) from exc
        return list(resolved) if resolved else None

    def universes_for(self, requested: Sequence[str] | None) -> list[str] | None:
        """The universes a call may search: the request within the server scope (``Library.scope_within``)."""
        asked = self._canonical(requested, "universes") if requested else None
        try:
            allowed = self.library.scope_within(asked, self.scope)
        except OutOfScopeError as exc:
            raise ServiceError(
                f"universe(s) {', '.join(exc.asked)} are outside this server's scope; it serves {', '.join(exc.scope)}"
            ) from exc
        return list(allowed) if allowed else None

    def check_slide_ids(self, slide_ids: Sequence[str]) -> list[str]:
        """``slide_ids`` deduplicated; ids the scope's library does not hold are one error listing them.

        An id outside the scope is unknown like a made-up one, in one list in the order given: the
        error must not tell a caller which ids exist in other universes.
        """
        ids = list(dict.fromkeys(self.policy.text(s) or "" for s in slide_ids))
        unknown = [s for s in ids if not self.library.in_scope(s, self.scope)]
        if unknown:
            raise ServiceError(f"unknown slide ids: {', '.join(unknown)}")
        return ids

    # ----------------------------------------------------------------- calls

    def search(self, query: Query, universes: Sequence[str] | None = None, top_per_group: int = 15, *,
               channel: str, session_id: str | None = None) -> SearchResponse:
        """``engine.search_v2`` within the scope; every card re-checked against it; the search logged."""
        query = self.policy.query(query)
        top_per_group = self.policy.top_per_group(top_per_group)
        allowed = self.universes_for(universes)
        started = time.perf_counter()
        response = self.engine.search_v2(query, universes=allowed, top_per_group=top_per_group)
        response = self._with_thumbnails(self._enforce_scope(response, allowed))
        latency_ms = (time.perf_counter() - started) * 1000
        self._count("search", latency_ms)
        if self.usage_log is not None:
            self.usage_log.submit_search(channel=channel, session_id=session_id, query=query, universes=allowed,
                                         slide_ids=card_ids(response), latency_ms=latency_ms)
        return response

    def explain(self, query: Query, slide_ids: Sequence[str], universes: Sequence[str] | None = None, *,
                channel: str, session_id: str | None = None) -> list[Explanation]:
        """``engine.explain`` for known, in-scope ids (in one batch), the query re-run in the search's scope."""
        query = self.policy.query(query)
        if not slide_ids:
            raise ServiceError("give at least one slide id to explain")
        if len(slide_ids) > MAX_EXPLAIN_IDS:
            raise ServiceError(f"at most {MAX_EXPLAIN_IDS} slide ids per explain call, got {len(slide_ids)}")
        ids = self.check_slide_ids(slide_ids)
        allowed = self.universes_for(universes)
        started = time.perf_counter()
        explanations = self.engine.explain(query, ids, universes=allowed)
        self._count("explain", (time.perf_counter() - started) * 1000)
        if self.usage_log is not None:
            self.usage_log.submit_explanations(session_id=session_id, query=query, slide_ids=ids, channel=channel)
        return explanations

    def assemble(self, slide_ids: Sequence[str] | None = None, query: Query | None = None, *,
                 sections: Sequence[str] | None = None, max_slides: int = 12, title: str | None = None,
                 universes: Sequence[str] | None = None, out: Path | None = None, channel: str,
                 session_id: str | None = None) -> AssembleResult:
        """A deck from ``slide_ids``, or from the top cards of ``sections`` for ``query`` (the one-step form)."""
        query = self.policy.query(query) if query else None
        title = self.policy.text(title)
        max_slides = self.policy.max_slides(max_slides)
        allowed = self.universes_for(universes)
        started = time.perf_counter()
        if slide_ids:
            ids = self.check_slide_ids(slide_ids)
        elif query:
            response = self.search(query, allowed, channel=channel, session_id=session_id)
            ids = pick_cards(response.groups, sections, max_slides, library=self.library)
            if not ids:
                raise ServiceError(f"the search for {query!r} returned no slides in {', '.join(sections or SECTIONS)}")
        else:
            raise ServiceError("give slide_ids, or a query to take the top cards from")
        text = query if isinstance(query, str) or query is None else " | ".join(query)
        result = assemble(ids, title=title, query=text, library=self.library, out=out, universes=allowed)
        self._count("assemble", (time.perf_counter() - started) * 1000)
        return result

    # ----------------------------------------------------------------- thumbnails

    def thumbnail_file(self, slide_id: str, large: bool = False) -> Path | None:
        """The PNG of an in-scope slide (small, or the large view), None when it was never rendered."""
        self.check_slide_ids([slide_id])
        row = self.library.id_to_row[slide_id]
        if self.thumbnails is None:
            return None
        source, number = self.library.source_paths[row], int(self.library.slide_numbers[row])
        return self.thumbnails.large(source, number) if large else self.thumbnails.thumbnail(source, number)

    def _with_thumbnails(self, response: SearchResponse) -> SearchResponse:
        """Each rendered slide's card with the address its thumbnail is served at."""
        if self.thumbnails is None:
            return response
        for card in response.cards():
            row = self.library.id_to_row.get(card.id)
            if row is not None and self.thumbnails.thumbnail(self.library.source_paths[row],
                                                             int(self.library.slide_numbers[row])):
                card.thumbnail = thumbnail_url(card.id)
        return response

    # ----------------------------------------------------------------- scope enforcement

    def _enforce_scope(self, response: SearchResponse, universes: Sequence[str] | None) -> SearchResponse:
        """The response without any card outside ``universes`` (a guard behind the engine's own scoping)."""
        if universes is None:
            return response
        groups = {name: [c for c in cards if self.library.in_scope(c.id, universes)] for name, cards in response.groups.items()}
        dropped = sum(len(cards) for cards in response.groups.values()) - sum(len(cards) for cards in groups.values())
        if not dropped:
            return response
        with self._lock:
            self._counts["out_of_scope_cards_dropped"] += dropped
        return response.model_copy(update={"groups": groups})

    # ----------------------------------------------------------------- health and stats

    def _count(self, what: str, latency_ms: float) -> None:
        with self._lock:
            self._counts[what] += 1
            if what == "search":
                self._latencies.append(latency_ms)
                del self._latencies[:-LATENCY_WINDOW]

    def count_error(self, status: int) -> None:
        with self._lock:
            self._counts[f"errors_{status // 100}xx"] += 1

    def searchable_universes(self) -> list[str]:
        """The universes a request may name: the server's scope, else every universe of the library, largest first."""
        if self.scope is not None:
            return list(self.scope)
        sizes = Counter(self.library.universes)
        return sorted(sizes, key=lambda name: (-sizes[name], name))

    def freshness(self) -> dict[str, Any] | None:
        """Whether the index on disk is up to date with the ingested library (None for a library in memory)."""
        from slidesearch.freshness import served_freshness

        if self.freshness_report is not None:
            return self.freshness_report()
        served = self.library.path
        if served is None:
            return None
        freshness = served_freshness(served, self.index_path)
        return {"status": freshness.status, "message": freshness.message,
                "index_generation": freshness.index_generation, "store_generation": freshness.store_generation}

    def health(self) -> dict[str, Any]:
        return {"status": "ok", "slides": self.library.n, "embedder": self.library.embedder_name, "scope": self.scope}

    def stats(self) -> dict[str, Any]:
        """Library counts within the scope (slides, decks, by universe and section) and what this process served."""
        lib = self.library
        rows = [r for r, u in enumerate(lib.universes) if self.scope is None or u in self.scope]
        universes = Counter(lib.universes[r] for r in rows)
        sections = Counter(SECTIONS[int(lib.sections[r])] for r in rows)
        with self._lock:
            counts = dict(self._counts)
            latencies = sorted(self._latencies)
        served: dict[str, Any] = {"since": self.started, "uptime_s": round(time.time() - self.started, 1), **counts}
        if latencies:
            served["search_latency_ms"] = {
                "p50": round(_percentile(latencies, 0.50), 2), "p99": round(_percentile(latencies, 0.99), 2),
                "n": len(latencies),
            }
        settings = get_settings()
        return {
            "library": {
                "slides": len(rows), "decks": len({lib.deck_ids[r] for r in rows}),
                "verified_case_studies": len(lib.master),
                "universes": dict(sorted(universes.items())),
                "sections": {s: sections.get(s, 0) for s in SECTIONS},
                "embedder": lib.embedder_name, "index": str(self.index_path) if self.index_path else None,
            },
            "scope": self.scope,
            "index_freshness": self.freshness(),
            "usage_log": bool(self.usage_log is not None and self.usage_log.enabled),
            "llm": settings.llm,
            "served": served,
        }


def card_ids(response: SearchResponse) -> list[str]:
    """Every card id of a response, in section then card order."""
    return [card.id for card in response.cards()]


def _percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile (the definition load-test reports use)."""
    rank = math.ceil(q * len(sorted_values))
    return sorted_values[max(0, min(len(sorted_values), rank) - 1)]
