import json, time, statistics, sys
from pathlib import Path
from slidesearch.generate import generate_library
from slidesearch.model import Slide, VerifiedCaseStudy
from slidesearch.library import Library
from slidesearch.engine import SlideSearch
n=int(sys.argv[1]); out=Path(f"/tmp/i7/scale{n}")
if not (out/"slides.jsonl").exists(): generate_library(n, 8, out)
t=time.time()
lib=Library.from_slides([Slide(**json.loads(l)) for l in open(out/"slides.jsonl")], master=[VerifiedCaseStudy(**json.loads(l)) for l in open(out/"master.jsonl")], embedder="fast")
print("build", round(time.time()-t,1), flush=True)
eng=SlideSearch(lib)
qs=[json.loads(l)["query"] for l in open(out/"queries.jsonl")]
eng.search_v2("warm up query")
times=[]; tot={}
for q in qs:
    t=time.perf_counter(); r=eng.search_v2(q, trace=True); times.append((time.perf_counter()-t)*1000)
    for row in r.trace: tot[row.stage]=tot.get(row.stage,0)+row.ms
times.sort()
print(n, "median", round(statistics.median(times),1), "p95", round(times[int(.95*len(times))],1))
for k,v in sorted(tot.items(), key=lambda kv:-kv[1])[:6]: print("  ",k, round(v/len(qs),1))
