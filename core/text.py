"""Text normalisation and tokenisation shared by both engines.

Three forms of a string matter in seek: the *normalised* form (lower case,
whitespace collapsed) used for exact-content dedup, the *punctuation-insensitive*
form (every non-alphanumeric run turned into one space) used for tolerant phrase
matching, and *tokens* (alphanumeric runs of the punctuation-insensitive form).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator

_WS = re.compile(r"\s+")
_CONTROL = re.compile(r"[\u0000-\u0008\u000b-\u001f\u007f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_NON_ALNUM = re.compile(r"[^0-9a-z]+")
_TOKEN = re.compile(r"[0-9a-z]+")
_WORD = re.compile(r"[^\W_]+")
_UNSEGMENTED = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)")
"""Scripts written without spaces between words (Japanese kana, CJK ideographs): indexed as character pairs."""

#: English function words; a plain list so it is stable across library versions.
ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    ["a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves", "s", "t", "d", "ll", "m", "o", "re", "ve", "y"]
)

#: Words that occur in almost any sales slide and say nothing about what a brief is after.
GENERIC_BUSINESS_TERMS: frozenset[str] = frozenset(
    ["slide", "slides", "deck", "decks", "presentation", "overview", "summary", "introduction", "agenda", "example", "examples", "case", "study", "studies", "use", "cases", "client", "clients", "customer", "customers", "company", "companies", "business", "solution", "solutions", "service", "services", "approach", "capability", "capabilities", "our", "we", "team", "data", "analytics", "project", "projects", "work", "help", "need", "want", "show", "find", "give", "looking", "please", "profile", "resume", "bio", "about", "across", "based", "key", "new", "using", "including", "include", "includes", "related", "information"]
)


def normalise(text: str) -> str:
    """Lower case with whitespace runs collapsed and ends stripped (NFKC first)."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text).lower()).strip()


def punctuation_insensitive(text: str) -> str:
    """Lower-case alphanumeric words separated by single spaces; all punctuation becomes a space."""
    return _NON_ALNUM.sub(" ", unicodedata.normalize("NFKC", text).lower()).strip()


def _split_unsegmented(word: str) -> list[str]:
    """A word as is, or, where it holds Japanese or Chinese characters, those runs as overlapping character pairs."""
    if not _UNSEGMENTED.search(word):
        return [word]
    out: list[str] = []
    for part in _UNSEGMENTED.split(word):
        if not part:
            continue
        if _UNSEGMENTED.fullmatch(part):
            out.extend([part] if len(part) == 1 else [part[i:i + 2] for i in range(len(part) - 1)])
        else:
            out.append(part)
    return out


def tokenize(text: str, stopwords: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """Lower-case word tokens in order (letters and digits of any script), without the given stopwords.

    "Apresentação" is one token, not "apresenta" + "o"; Japanese and Chinese text, written without
    spaces, becomes overlapping character pairs ("需要予測" -> "需要", "要予", "予測"), the usual unit
    for indexing those scripts without a dictionary.
    """
    tokens = [t for w in _WORD.findall(unicodedata.normalize("NFKC", text).lower()) for t in _split_unsegmented(w)]
    if not stopwords:
        return tokens
    return [t for t in tokens if t not in stopwords]


def stoplist(*extra: Iterable[str], include_business: bool = True) -> frozenset[str]:
    """English stopwords, optionally the generic business terms, plus any engine-specific words."""
    words = set(ENGLISH_STOPWORDS)
    if include_business:
        words |= GENERIC_BUSINESS_TERMS
    for group in extra:
        words |= {w.lower() for w in group}
    return frozenset(words)


def ngrams(tokens: list[str], sizes: Iterable[int] = (2, 3)) -> Iterator[str]:
    """Adjacent word n-grams joined by a single space, for each size in ``sizes``."""
    for n in sizes:
        for i in range(len(tokens) - n + 1):
            yield " ".join(tokens[i : i + n])


def without_surrogates(text: str) -> str:
    """``text`` with every lone UTF-16 surrogate (``"\\ud800"``, which JSON can carry) replaced by U+FFFD.

    A surrogate is not a character: it cannot be encoded as UTF-8, so a tokenizer, SQLite or a
    JSON response that meets one fails. JSON decoders already join a valid pair into one character,
    so only lone halves are left to replace.
    """
    return _SURROGATE.sub("\ufffd", text)


def clean_text(text: str) -> str:
    """NFKC, lone surrogates and control characters replaced, whitespace collapsed and stripped: what a typed
    query is searched as.

    Empty after cleaning means there is nothing to search (a lone NUL, tabs, spaces).
    """
    return _WS.sub(" ", _CONTROL.sub(" ", unicodedata.normalize("NFKC", without_surrogates(text)))).strip()


FACT_OPENERS = frozenset(["what", "which", "who", "whom", "whose", "when", "where"])
"""Wh-words that ask for one fact (a thing, a person, a time, a place); "how many" / "how much" do too."""
_HOW_MUCH = frozenset(["many", "much"])
_WHO_NAMES = re.compile(r"(?i:who)(?:\s+(?i:is|are|was|were)|['’](?i:s))\s+[A-Z]")
"""An opening "who is" / "who's" that a capitalised word follows: a person lookup ("who is Amara Novak")."""


def asks_for_a_fact(text: str) -> bool:
    """True for a factoid question ("what share of ...?", "who is Amara Novak", "how many stores").

    A factoid question states the fact it asks about in the slide's words. Without a question mark, a
    brief opening "why", "how" (but not "how many" / "how much") or an auxiliary ("is solar power worth
    the investment") asks for an explanation or a view on a topic, the way a topical brief does; so does
    a "who ..." that names no one ("who is winning India's election on social media"), where "who is
    Amara Novak" looks a person up (06b's person trigger reads "who is" the same way).
    """
    stripped = text.strip()
    if stripped.endswith("?"):
        return True
    first = _TOKEN.findall(stripped.lower()[:40])
    if not first:
        return False
    if first[0] == "who":
        return bool(_WHO_NAMES.match(stripped))
    return first[0] in FACT_OPENERS or (first[0] == "how" and len(first) > 1 and first[1] in _HOW_MUCH)


FOREIGN_SHARE = 0.5
"""A text more than this share of whose letters are not Latin is one an English sentence encoder cannot read."""


def foreign_share(text: str) -> float:
    """The share of a text's letters outside the Latin script (0 for a text with no letters)."""
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return 0.0
    return sum(1 for ch in letters if ord(ch) > 0x024F) / len(letters)
