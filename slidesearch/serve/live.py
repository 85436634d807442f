"""A server over the PostgreSQL library that follows its live generation without a restart.

``LiveService`` stands in for a ``SlideService``: every attribute is the current service's, read
once per call, so a request runs start to finish on one engine. A thread polls the live generation
(``SEEK_STORE_POLL_SECONDS``, default 1 s); on a new one it loads that generation's library,
builds and warms an engine whose stages 06 and 07 run in SQL on that generation, and only then
swaps the current service (one assignment). Requests in flight finish on the old engine, whose
generation the publisher keeps until the next publish. A failed load leaves the served generation
in place, counts ``reload_errors`` and is tried again on the next poll. ``/stats`` and ``/health``
carry the generation served (``index_freshness``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any

from slidesearch.config import SearchConfig
from slidesearch.engine import SlideSearch
from slidesearch.library import LibraryError
from slidesearch.pg_library import PublishedLibrary, SqlPool
from slidesearch.serve.service import SlideService
from slidesearch.serve.usage_log import UsageLog

_log = logging.getLogger(__name__)


class LiveService:
    """The ``SlideService`` of the live generation of a PostgreSQL library (see the module docstring)."""

    def __init__(self, url: str, *, scope: Sequence[str] | None = None, usage_log: UsageLog | None = None,
                 config: SearchConfig | None = None, poll_seconds: float = 1.0, warm: bool = True) -> None:
        self._published = PublishedLibrary(url)
        self._url, self._config, self._warm = url, config, warm
        self._lookup = threading.Lock()  # the published library's connection is used by the poller and /stats
        live = self._live()
        if live is None:
            raise LibraryError("the PostgreSQL library has no published generation yet; run `seek slides index` "
                               "(or `seek slides ingest`) with this SEEK_STORE")
        self.generation, self._built_from = live
        engine, self._pool = self._engine(self.generation)
        self._current = SlideService(engine, scope=scope, usage_log=usage_log, freshness_report=self._freshness)
        self.reload_errors = 0
        self._stop = threading.Event()
        self._poller = threading.Thread(target=self._poll, args=(poll_seconds,), name="seek-live-generation",
                                        daemon=True)
        self._poller.start()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._current, name)

    @property
    def service(self) -> SlideService:
        """The service of the generation served now."""
        return self._current

    def _live(self) -> tuple[int, int] | None:
        with self._lookup:
            return self._published.live()

    def _engine(self, generation: int) -> tuple[SlideSearch, SqlPool]:
        with self._lookup:
            library = self._published.load(generation)
        pool = SqlPool(self._url, generation)
        engine = SlideSearch(library, config=self._config, pool_queries=pool)
        if self._warm:
            engine.warm_up()
        return engine, pool

    def refresh(self) -> bool:
        """Move to the live generation when it is newer than the one served; whether it moved."""
        live = self._live()
        if live is None or live[0] == self.generation:
            return False
        engine, pool = self._engine(live[0])
        previous_pool = self._pool
        self._current = self._current.replaced(engine, freshness_report=self._freshness)
        self.generation, self._built_from, self._pool = live[0], live[1], pool
        previous_pool.close()
        with self._lookup:
            self._published.forget_older(self.generation)
        return True

    def _poll(self, seconds: float) -> None:
        while not self._stop.wait(seconds):
            try:
                self.refresh()
            except Exception:  # the database away or a generation gone mid-load: keep serving, retry
                self.reload_errors += 1
                _log.exception("could not load the live library generation; still serving %s", self.generation)

    def _freshness(self) -> dict[str, Any]:
        try:
            live = self._live()
            with self._lookup:
                store_generation = self._published.store_generation()
        except Exception as exc:  # /stats must answer while the database is away
            return {"status": "unknown", "message": f"the PostgreSQL library is unreachable: {type(exc).__name__}",
                    "index_generation": self._built_from, "store_generation": None,
                    "library_generation": self.generation, "live_generation": None}
        moving = live is not None and live[0] != self.generation
        behind = store_generation != self._built_from
        status = "stale" if moving or behind else "fresh"
        message = ("serving the live library generation" if not moving and not behind else
                   "a newer library generation is published; this server moves to it within a poll" if moving else
                   "the library was ingested since this generation was built; it is served once indexed")
        return {"status": status, "message": message, "index_generation": self._built_from,
                "store_generation": store_generation, "library_generation": self.generation,
                "live_generation": live[0] if live else None}

    def close(self) -> None:
        """Stop following the library and close its connections."""
        self._stop.set()
        self._poller.join(timeout=10)
        self._pool.close()
        self._published.close()
