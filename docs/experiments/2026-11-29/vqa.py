"""SlideVQA MRR@10 via SlideSearch.retrieve, dev/test split by deck hash (tune on dev, report test)."""
import hashlib, json, re, sys, time
from pathlib import Path
from core.embed import CachedEmbedder, make_embedder
from slidesearch.model import Slide
from slidesearch.library import Library
from slidesearch.engine import SlideSearch
from slidesearch.config import SearchConfig

D = Path("/work/shared/data/slidevqa")
texts = json.load(open(D / "slide_vqa_image_to_gpt_text.json"))
qs = json.load(open(D / "slide_vqa_question_answer_docid_list.json"))
def deck_of(sid):
    return re.match(r"^(?P<deck>.*)-(?P<page>\d+)-1024\.jpg$", sid)["deck"]
from slidesearch.ingest import read_slidevqa
slides = read_slidevqa(Path('/work/shared/data'))
name = sys.argv[1] if len(sys.argv) > 1 else "minilm"
emb = CachedEmbedder(make_embedder(name), Path(f"/tmp/i7/emb_{name}.sqlite"))
t = time.time()
lib = Library.from_slides(slides, embedder=emb)
print(f"library built {time.time()-t:.1f}s", file=sys.stderr)
def split(q):
    return "dev" if int(hashlib.sha1(deck_of(q["docid"][0]).encode()).hexdigest(), 16) % 2 == 0 else "test"
emb.encode([q["question"] for q in qs])
def mrr(cfg, which):
    eng = SlideSearch(lib, config=cfg)
    tot = n = 0
    for q in qs:
        if which != "all" and split(q) != which: continue
        hits = [sid for sid, _ in eng.retrieve(q["question"], 10)]
        rel = set(q["docid"])
        rr = next((1 / (i + 1) for i, h in enumerate(hits) if h in rel), 0.0)
        tot += rr; n += 1
    return tot / n
variants = json.loads(sys.argv[2]) if len(sys.argv) > 2 else [{}]
for v in variants:
    cfg = SearchConfig(**v)
    print(json.dumps(v), {w: round(mrr(cfg, w), 4) for w in ("dev", "test")}, flush=True)
