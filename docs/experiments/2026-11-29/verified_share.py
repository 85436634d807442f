import json, sys
from pathlib import Path
from collections import Counter
from core.embed import CachedEmbedder, make_embedder
from slidesearch.model import Slide, VerifiedCaseStudy
from slidesearch.library import Library
from slidesearch.engine import SlideSearch
out=Path("/tmp/i7/gen5000-s7")
emb=CachedEmbedder(make_embedder("minilm"), Path("/tmp/i7/emb_minilm.sqlite"))
lib=Library.from_slides([Slide(**json.loads(l)) for l in open(out/"slides.jsonl")], master=[VerifiedCaseStudy(**json.loads(l)) for l in open(out/"master.jsonl")], embedder=emb)
eng=SlideSearch(lib)
c=Counter()
for q in (json.loads(l) for l in open(out/"queries.jsonl")):
    for card in eng.search_v2(q["query"]).cards():
        g=q["relevance"].get(card.id,0)
        c[("verified" if card.verified else "slide", "correct" if g>=2 else "50-50" if g>=1 else "wrong")]+=1
print(c)
