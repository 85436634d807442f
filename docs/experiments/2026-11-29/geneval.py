"""Generated-library eval: label judge (grade>=2 correct, 1 = 50-50, unlabelled = wrong) + expectations."""
import json, sys, time, math
from pathlib import Path
from collections import Counter
from core.embed import CachedEmbedder, make_embedder
from slidesearch.generate import generate_library
from slidesearch.model import Slide, VerifiedCaseStudy
from slidesearch.library import Library
from slidesearch.engine import SlideSearch
from slidesearch.config import SearchConfig
n, seed, embname = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
variants = json.loads(sys.argv[4]) if len(sys.argv) > 4 else [{}]
out = Path(f"/tmp/i7/gen{n}-s{seed}")
if not (out / "queries.jsonl").exists(): generate_library(n, seed, out)
slides = [Slide(**json.loads(l)) for l in open(out / "slides.jsonl")]
master = [VerifiedCaseStudy(**json.loads(l)) for l in open(out / "master.jsonl")]
emb = CachedEmbedder(make_embedder(embname), Path(f"/tmp/i7/emb_{embname}.sqlite"))
lib = Library.from_slides(slides, master=master, embedder=emb)
qs = [json.loads(l) for l in open(out / "queries.jsonl")]
def ndcg(ranked, rel, k=10):
    dcg = sum((2**rel.get(r, 0) - 1) / math.log2(i + 2) for i, r in enumerate(ranked[:k]))
    ideal = sorted(rel.values(), reverse=True)[:k]
    idcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0
for v in variants:
    eng = SlideSearch(lib, config=SearchConfig(**v))
    verdicts = Counter(); zero = 0; nd = []; fails = Counter(); bykind = {}
    t = time.time()
    for q in qs:
        r = eng.search_v2(q["query"])
        cards = r.cards()
        if not cards: zero += 1
        rel = q["relevance"]
        vk = Counter()
        for c in cards:
            g = rel.get(c.id, 0)
            vk["correct" if g >= 2 else "50-50" if g >= 1 else "wrong"] += 1
        verdicts.update(vk); bk = bykind.setdefault(q["kind"], Counter()); bk.update(vk)
        if rel: nd.append(ndcg([c.id for c in sorted(cards, key=lambda c: -c.score)], rel))
        e = q["expectations"]
        if "excluded_sections" in e and any(s in r.groups and r.groups[s] for s in e["excluded_sections"]): fails["exclusion"] += 1
        if "absent_terms" in e and not r.coverage_note: fails["coverage"] += 1
        if "expected_first_slide" in e and (not cards or cards[0].id != e["expected_first_slide"]): fails["first"] += 1
        if "entity" in e:
            top = next(iter(r.groups.values()), [])
            if not any(e["entity"].lower() in (lib.snippets[lib.id_to_row[c.id]].lower() if not c.verified else "") for c in top): fails["entity_top"] += 1
    tot = sum(verdicts.values())
    print(json.dumps(v), f"correct {verdicts['correct']/tot:.3f} 5050 {verdicts['50-50']/tot:.3f} wrong {verdicts['wrong']/tot:.3f} cards {tot} zero {zero} ndcg {sum(nd)/len(nd):.3f} fails {dict(fails)} {time.time()-t:.1f}s", flush=True)
    if len(variants) == 1:
        for k, c in bykind.items():
            s = sum(c.values()); print("   ", k, f"correct {c['correct']/s:.2f} wrong {c['wrong']/s:.2f} n {s}")
