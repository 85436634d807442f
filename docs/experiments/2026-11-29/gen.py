import json, time, sys
from pathlib import Path
from slidesearch.generate import generate_library
from slidesearch.model import Slide, VerifiedCaseStudy
from slidesearch.library import Library
n=int(sys.argv[1]); out=Path(f"/tmp/i7/gen{n}")
t=time.time(); m=generate_library(n, 7, out); print("gen", time.time()-t)
slides=[Slide(**json.loads(l)) for l in open(out/"slides.jsonl")]
master=[VerifiedCaseStudy(**json.loads(l)) for l in open(out/"master.jsonl")]
t=time.time(); lib=Library.from_slides(slides, master=master, embedder=sys.argv[2]); print("lib", time.time()-t, lib.n, len(lib.master), len(lib.clusters), len(lib.taxonomy))
qs=[json.loads(l) for l in open(out/"queries.jsonl")]
print(len(qs)); 
from collections import Counter; print(Counter(q["kind"] for q in qs))
for k in Counter(q["kind"] for q in qs):
    q=next(q for q in qs if q["kind"]==k); print(k, q["query"], q["expectations"], list(q["relevance"].items())[:3])
print(json.loads(open(out/"slides.jsonl").readline()))
