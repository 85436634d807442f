"""Spec step 18b: "why this?" for the visible cards.

One batched LLM call is fed the query the results were ranked against and each card's
full 600-character snippet (the seed's bug: explanations written from the 200-character
preview). The reply must hold exactly one explanation per card; if its length differs,
positional trust is broken for the whole batch (the seed's 29-for-30 cascade), so every
card falls back to the offline explainer.

The offline explainer states only what is true of the card: the query words and
phrases its title + snippet literally contains, the related terms it literally
contains, and its own score factors. When no query word is on the slide it says the
match is by meaning only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import BaseModel

from core.text import ENGLISH_STOPWORDS, ngrams, punctuation_insensitive, tokenize
from slidesearch.model import FOUND_IN
from slidesearch.response import Card, Explanation

if TYPE_CHECKING:
    from llm_adapters import LanguageModel

MAX_BATCH = 50


@dataclass(frozen=True)
class ExplainItem:
    """One card to explain with the text the explainer may read."""

    card: Card
    snippet: str
    shown: bool = True
    """False for a card the query's response does not show (asked about by id): it is explained as such."""
    fields: dict[str, str] = field(default_factory=dict)
    """The slide's other searched texts by field (``model.FOUND_IN``): says where a match was found."""


class ExplainReply(BaseModel):
    """The JSON the LLM explainer must return: one explanation per card, in order."""

    explanations: list[str]


def literal_matches(query: str, text: str) -> list[str]:
    """Query phrases (3 then 2 words) and remaining words, stopwords skipped, that ``text`` contains as whole words."""
    padded = f" {punctuation_insensitive(text)} "
    words = tokenize(query, ENGLISH_STOPWORDS)
    found: list[str] = []
    covered: set[str] = set()
    for phrase in ngrams(words, (3, 2)):
        if f" {phrase} " in padded and not set(phrase.split()) <= covered:
            found.append(phrase)
            covered.update(phrase.split())
    for word in dict.fromkeys(words):
        if word not in covered and f" {word} " in padded:
            found.append(word)
            covered.add(word)
    return found


def _quoted(terms: Sequence[str]) -> str:
    return ", ".join(f'"{t}"' for t in terms)


def _specific(terms: Sequence[str]) -> str:
    """How the explainer names 06b's terms a card holds: '"election", a specific term from the query'."""
    return f"{_quoted(terms)}, {'a specific term' if len(terms) == 1 else 'specific terms'} from the query"


def offline_explanation(query: str, item: ExplainItem, expanded: Sequence[str] = (),
                        entity_terms: Sequence[str] = ()) -> Explanation:
    """An honest explanation from the card's own factors and the words it literally contains.

    ``entity_terms`` are the terms 06b found (``SearchResponse.entity_terms``): a rare word or phrase, or a person
    asked about. The guaranteed slot (14b) and the entity factor are explained by the ones the card holds, by name:
    "election" in "who is winning India's election on social media" is a rare word, not a name, and the card
    must not call it one.
    """
    card, f = item.card, item.card.factors
    text = "\n".join([card.title, item.snippet, *item.fields.values()])
    matched = literal_matches(query, text)
    padded = f" {punctuation_insensitive(text)} "

    def held(terms: Sequence[str]) -> list[str]:
        """The ``terms`` the card's text holds as whole words (punctuation-insensitive)."""
        return [t for t in terms if f" {punctuation_insensitive(t)} " in padded]

    related = held(expanded)[:3]
    parts: list[str] = [] if item.shown else ["Not among the results for this query."]
    if card.verified:
        who = f" for {card.client}" if card.client else ""
        if item.shown:
            sim = f" (similarity {f.similarity:.2f})" if f.similarity is not None else ""
            parts.append(f"Verified case study{who} from the master sheet, close in meaning to the query{sim}.")
        else:
            parts.append(f"Verified case study{who} from the master sheet.")
    if matched:
        parts.append(f"Contains {_quoted(matched)} from the query.")
    elif item.shown:
        parts.append("None of the query's words appear on it; it matched by meaning only (closest related material).")
    else:
        parts.append("None of the query's words appear on it.")
    for name, field_text in item.fields.items():
        inside = f" {punctuation_insensitive(field_text)} "
        found = [t for t in matched if f" {t} " in inside]
        if found:
            parts.append(f"Found in {FOUND_IN[name]}: {_quoted(found)}.")
    if related:
        parts.append(f"Also mentions related term{'s' if len(related) > 1 else ''} {_quoted(related)}.")
    named = held(entity_terms) if card.guaranteed or f.entity > 1 else []
    if card.guaranteed:
        what = _specific(named) if named else "a specific term from the query"
        parts.append(f"Given a guaranteed place in {card.section}: it is the best literal match for {what}.")
    elif f.entity > 1:
        what = f"containing {_specific(named)}" if named else "naming something specific from the query"
        parts.append(f"Scored x{f.entity:g} for {what}.")
    if f.titled > 1:
        parts.append(f"Scored x{f.titled:g}: its title says what the query asks for.")
    if f.held_below_primary:
        parts.append("It surfaced through related terms only, so it is ranked below every direct match.")
    if f.deck > 0.25 * f.primary > 0:
        parts.append("Other slides of its deck match the query too, which lifted it.")
    lifts = [name for name, value in (("folder", f.folder), ("slide type", f.type)) if value > 1]
    if lifts:
        parts.append(f"Its {' and '.join(lifts)} suit{'s' if len(lifts) == 1 else ''} this kind of request.")
    if f.type < 1:
        parts.append("Its slide type usually carries little content, so it is ranked lower.")
    return Explanation(slide_id=card.id, explanation=" ".join(parts), matched_terms=matched, llm="offline")


EXPLAIN_SYSTEM = (
    "You explain search results to a sales rep. Be accurate: describe a genuine match, a loose match, or no real "
    "match. Never claim a connection the slide text does not contain. Answer with JSON only."
)


def explain_prompt(query: str, items: Sequence[ExplainItem]) -> str:
    blocks = "\n\n".join(
        f"[{i}] {it.card.title} (deck: {it.card.deck_name}; section: {it.card.section})\n{it.snippet}"
        for i, it in enumerate(items, start=1)
    )
    return (
        f"Query the results were ranked against: {query!r}\n\nResults:\n{blocks}\n\n"
        f"For each of the {len(items)} results, in order, write one or two sentences on why it matches the query, "
        f'quoting what the slide actually says. Return {{"explanations": [...]}} with exactly {len(items)} strings.'
    )


def explain_items(query: str, items: Sequence[ExplainItem], model: LanguageModel, expanded: Sequence[str] = (),
                  entity_terms: Sequence[str] = ()) -> list[Explanation]:
    """One LLM call per batch of up to 50 cards; a failed or misaligned batch falls back to offline, whole."""
    from llm_adapters import LLMError, batch_matches

    out: list[Explanation] = []
    for start in range(0, len(items), MAX_BATCH):
        batch = list(items[start : start + MAX_BATCH])
        try:
            reply = model.complete_json(explain_prompt(query, batch), ExplainReply, system=EXPLAIN_SYSTEM)
        except LLMError:
            reply = None
        if reply is None or not batch_matches(reply.explanations, len(batch)):
            out.extend(offline_explanation(query, it, expanded, entity_terms) for it in batch)
            continue
        for it, text in zip(batch, reply.explanations, strict=True):
            matched = literal_matches(query, f"{it.card.title}\n{it.snippet}")
            out.append(Explanation(slide_id=it.card.id, explanation=str(text).strip(), matched_terms=matched,
                                   llm=model.id))
    return out
