"""The slide library, split by job: ``columns`` (the ``Library`` and its scope rule), ``mining`` (pure
corpus mining), ``storage`` (save and open) and ``view`` (every derived array the pipeline stages read)."""

from slidesearch.library.columns import Library, OutOfScopeError, UnknownUniverseError
from slidesearch.library.storage import SCHEMA_VERSION, LibraryError
from slidesearch.library.view import LibraryView

__all__ = ["SCHEMA_VERSION", "Library", "LibraryError", "LibraryView", "OutOfScopeError", "UnknownUniverseError"]
