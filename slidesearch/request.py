"""One input policy for every entry point: the CLI, the HTTP API, the MCP tools, the page, explain and assemble.

The rule a person can predict from any channel:

- **Text is never refused for its length.** A query is a string or a list of angles; blank angles are
  dropped and an empty query is refused. An angle longer than ``SearchConfig.max_angle_chars`` is searched
  on its first characters and angles beyond ``max_angles`` are searched together as the last one; the
  engine does both (spec step 03) and says so in the response's ``notes``, so a pasted brief loses no word
  silently and a caller never has to re-send it shorter.
- **A number outside its range is refused**, with one message naming the range: ``top_per_group`` is
  1..``max_top_per_group`` (a section still shows at most ``section_cap`` cards and the response says so
  when more were asked), a deck holds 1..``MAX_DECK_SLIDES`` slides. A number is a deliberate setting, so a
  wrong one is a mistake to report, not to guess around.
- **Universes** are given as a list, a comma-separated string, or both (``--universe A --universe B,C``);
  blanks are dropped and names are matched to the library's spelling downstream.
- **Text is text**: a lone UTF-16 surrogate (``"\\ud800"`` in JSON) in a query, universe, slide id or
  title is replaced by U+FFFD before anything reads it (``core.text.without_surrogates``).

The limits live in ``SearchConfig``; the service, the HTTP models, the MCP tools and the CLI all call
``RequestPolicy`` so none restates them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.text import clean_text, without_surrogates

if TYPE_CHECKING:
    from slidesearch.config import SearchConfig

# The engine, python-pptx and numpy are imported where used: the CLI imports this module for its help
# texts, and `seek --help` should not wait for them.

Query = str | list[str]


class RequestError(ValueError):
    """A request refused by the input policy; the message says what was wrong and what is allowed."""


@dataclass(frozen=True)
class RequestPolicy:
    """The input limits of one engine configuration, applied the same way by every channel."""

    max_angles: int
    max_angle_chars: int
    max_top_per_group: int
    section_cap: int
    max_deck_slides: int

    @classmethod
    def of(cls, config: SearchConfig | None = None) -> RequestPolicy:
        """The policy of ``config`` (default: the default ``SearchConfig``)."""
        from slidesearch.config import MAX_DECK_SLIDES, SearchConfig

        cfg = config or SearchConfig()
        return cls(max_angles=cfg.max_angles, max_angle_chars=cfg.max_angle_chars,
                   max_top_per_group=cfg.max_top_per_group, section_cap=cfg.section_cap,
                   max_deck_slides=MAX_DECK_SLIDES)

    def query(self, value: object) -> Query:
        """``value`` with blank angles dropped and space stripped; not a string or list of strings, or empty, is refused.

        Length is not checked here: the engine cuts and merges with a note (see the module docstring).
        """
        if not isinstance(value, str | list) or (isinstance(value, list) and not all(isinstance(a, str) for a in value)):
            raise RequestError("the query must be a string or a list of strings (one per angle)")
        # Blank means no searchable text: whitespace and control characters (a lone NUL) alike. Lone surrogates
        # ("\ud800", which JSON can carry) are replaced here, before any tokenizer, log or response meets them.
        given = [value] if isinstance(value, str) else value
        angles = [without_surrogates(a).strip() for a in given if clean_text(a)]
        if not angles:
            raise RequestError("the query is empty; say what you are looking for (one angle per line for a brief)")
        return angles[0] if isinstance(value, str) else angles

    def text(self, value: str | None) -> str | None:
        """A free-text field (a title, a slide id) with lone surrogates replaced, so no encoder fails on it."""
        return without_surrogates(value) if value is not None else None

    def top_per_group(self, value: int) -> int:
        """``value`` when it is 1..max_top_per_group; otherwise refused with the range."""
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= self.max_top_per_group:
            raise RequestError(f"top_per_group must be between 1 and {self.max_top_per_group}, got {value!r} "
                               f"(a section shows at most {self.section_cap} cards)")
        return value

    def max_slides(self, value: int) -> int:
        """``value`` when it is 1..max_deck_slides; otherwise refused with the range."""
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= self.max_deck_slides:
            raise RequestError(f"max_slides must be between 1 and {self.max_deck_slides}, got {value!r}")
        return value


def split_universes(values: Iterable[str] | str | None) -> list[str] | None:
    """Universes given as a list, a comma-separated string, or a list of such strings; None when none is left."""
    if values is None:
        return None
    items = [values] if isinstance(values, str) else list(values)
    names = [name.strip() for item in items for name in without_surrogates(item).split(",") if name.strip()]
    return list(dict.fromkeys(names)) or None


#: The help text of every ``--universe`` option, so the CLI says one thing everywhere.
UNIVERSE_HELP = "Limit to these universes: repeat the option or separate names with commas (matched case-insensitively)."
