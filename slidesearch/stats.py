"""What is in the library: counts by universe, section, content type and deck, index sizes, embedder, freshness."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from slidesearch.freshness import index_freshness
from slidesearch.library import Library


def _dir_bytes(path: Path) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for item in sorted(path.iterdir()):
        if item.is_dir():
            sizes[item.name] = sum(f.stat().st_size for f in item.rglob("*") if f.is_file())
        else:
            sizes[item.name] = item.stat().st_size
    return sizes


def library_stats(library: Library, top_decks: int = 10) -> dict[str, Any]:
    """Counts and sizes of a library, JSON-ready; index file sizes when it was opened from disk."""
    decks = Counter(library.deck_ids)
    names = dict(zip(library.deck_ids, library.deck_names, strict=True))
    section_counts = Counter(int(s) for s in library.sections)
    files = _dir_bytes(library.path) if library.path is not None else {}
    return {
        "slides": library.n,
        "decks": len(decks),
        "canonical_decks": len(set(library.canonical_decks)),
        "folders": len(set(library.folders)),
        "by_universe": dict(Counter(library.universes).most_common()),
        "by_section": {name: section_counts.get(i, 0) for i, name in enumerate(library.section_table.names)},
        "by_content_type": dict(Counter(library.content_types).most_common()),
        "largest_decks": [
            {"deck_id": d, "deck_name": names[d], "slides": c} for d, c in decks.most_common(top_decks)
        ],
        "master_rows": len(library.master),
        "clusters": {"keys": len(library.clusters), "terms": sum(len(t) for t in library.clusters.values())},
        "taxonomy_terms": len(library.taxonomy),
        "vocabulary": {"words": len(library.rarity.words), "phrases": len(library.rarity.phrases)},
        "embedder": library.embedder_name,
        "dim": int(library.vectors.shape[1]) if library.vectors.ndim == 2 else 0,
        "index_path": str(library.path) if library.path is not None else None,
        "index_bytes": sum(files.values()),
        "index_files": files,
        # Whether the library was ingested into since the index was built (None for a library not on disk).
        "freshness": index_freshness(library.path).model_dump() if library.path is not None else None,
    }
