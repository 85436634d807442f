"""What the new slide fields add on real decks: slides that gained text, titles found, and a retrieval check.

``dump`` reads every deck of a folder with whichever ``slidesearch`` is importable (run it
once with an older checkout on PYTHONPATH for the baseline) and writes one JSON line per
slide keyed ``<deck path relative to the data folder>#<slide>``. ``score`` compares two
dumps: counts of slides with no searchable text, with picture / SmartArt / chart text, with
a title; and BM25 and MiniLM top-10 nDCG@10 / recall@10 against a graded ``queries.jsonl``
(the realdecks set), for each dump's search documents.

Run: ``python -m bench.extraction_gain dump DIR OUT`` then ``python -m bench.extraction_gain score OLD NEW QUERIES``.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

FIELDS = ("notes", "smartart_text", "chart_text", "picture_text")


def dump(decks: Path, out: Path) -> None:
    """Every slide of every .pptx under ``decks`` as a JSON line (title, text and the new fields when present)."""
    from slidesearch.ingest import read_pptx

    base = decks.parent
    with out.open("w") as fh:
        for path in sorted(decks.rglob("*.pptx")):
            try:
                _, slides = read_pptx(path, decks)
            except Exception as exc:  # noqa: BLE001 - a deck that fails is reported, the rest go on
                print(f"skipped {path}: {exc}")
                continue
            for s in slides:
                row = {"key": f"{path.relative_to(base)}#{s.slide_number}", "title": s.title, "text": s.text}
                row.update({f: getattr(s, f, "") for f in FIELDS})
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def _document(row: dict, fields: tuple[str, ...]) -> str:
    return "\n".join(p for p in [row["title"], row["text"], *(row.get(f, "") for f in fields)] if p)


def _ndcg(ranked: list[str], grades: dict[str, int], k: int = 10) -> float:
    dcg = sum((2 ** grades.get(key, 0) - 1) / math.log2(i + 2) for i, key in enumerate(ranked[:k]))
    ideal = sorted(grades.values(), reverse=True)[:k]
    best = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / best if best else 0.0


def _retrieval(rows: list[dict], fields: tuple[str, ...], queries: list[dict]) -> dict[str, dict[str, float]]:
    import bm25s
    import numpy as np

    from core.embed import make_embedder

    keys, docs = [r["key"] for r in rows], [_document(r, fields) for r in rows]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(docs, stopwords="en", show_progress=False), show_progress=False)
    embedder = make_embedder("minilm")
    vectors = embedder.encode(docs)
    answered = [q for q in queries if q["relevant"]]
    out: dict[str, dict[str, float]] = {}
    for name in ("bm25", "minilm"):
        ndcg, recall = [], []
        for q in answered:
            if name == "bm25":
                idx, _ = retriever.retrieve(bm25s.tokenize([q["query"]], stopwords="en", show_progress=False),
                                            k=10, show_progress=False)
                ranked = [keys[i] for i in idx[0]]
            else:
                scores = vectors @ embedder.encode([q["query"]])[0]
                ranked = [keys[i] for i in np.argsort(-scores)[:10]]
            ndcg.append(_ndcg(ranked, q["relevant"]))
            recall.append(len(set(ranked) & set(q["relevant"])) / len(q["relevant"]))
        out[name] = {"ndcg@10": round(sum(ndcg) / len(ndcg), 4), "recall@10": round(sum(recall) / len(recall), 4)}
    return out


def score(old: Path, new: Path, queries_path: Path) -> dict:
    """Counts and retrieval of the old dump (title + text) against the new one (plus its fields)."""
    before = [json.loads(line) for line in old.read_text().splitlines()]
    after = [json.loads(line) for line in new.read_text().splitlines()]
    queries = [json.loads(line) for line in queries_path.read_text().splitlines()]
    old_by_key = {r["key"]: r for r in before}
    counts = {
        "slides": len(after),
        "no_text_before": sum(not _document(r, ()).strip() for r in before),
        "no_text_after": sum(not _document(r, FIELDS).strip() for r in after),
        "untitled_before": sum(not r["title"] for r in before),
        "untitled_after": sum(not r["title"] for r in after),
        "titles_changed": sum(r["title"] != old_by_key.get(r["key"], {}).get("title") for r in after),
        **{f"with_{f}": sum(bool(r.get(f)) for r in after) for f in FIELDS},
        "gained_text": sum(any(r.get(f) for f in FIELDS[1:]) for r in after),
        "gained_text_that_had_none": sum(not _document(r, ("notes",)).strip() and any(r.get(f) for f in FIELDS[1:])
                                        for r in after),
    }
    return {
        "counts": counts,
        "retrieval": {
            "before (old extraction: title + text incl. notes)": _retrieval(before, (), queries),
            "after, typed text + notes only": _retrieval(after, ("notes",), queries),
            "after, + SmartArt + charts": _retrieval(after, ("notes", "smartart_text", "chart_text"), queries),
            "after, + SmartArt + charts + OCR": _retrieval(after, FIELDS, queries),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump")
    d.add_argument("decks", type=Path)
    d.add_argument("out", type=Path)
    s = sub.add_parser("score")
    s.add_argument("old", type=Path)
    s.add_argument("new", type=Path)
    s.add_argument("queries", type=Path)
    args = parser.parse_args()
    if args.command == "dump":
        dump(args.decks, args.out)
    else:
        print(json.dumps(score(args.old, args.new, args.queries), indent=2))


if __name__ == "__main__":
    main()
