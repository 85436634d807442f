import json, sys, time, statistics
from slidesearch.config import SearchConfig
t=time.perf_counter()
from slidesearch.library import Library
from slidesearch.engine import SlideSearch
t_imp=time.perf_counter()-t
t=time.perf_counter(); lib=Library.open(); t_open=time.perf_counter()-t
eng=SlideSearch(lib, config=SearchConfig(**json.loads(sys.argv[1])) if len(sys.argv) > 1 else None)
qs=[json.loads(l) for l in open('/work/big/gen/queries.jsonl')]
eng.search_v2("warm up query analytics")
lat=[]
for q in qs:
    s=time.perf_counter(); r=eng.search_v2(q["query"], universes=q.get("universes")); lat.append((time.perf_counter()-s)*1000)
    assert r.total_matches>0, q
lat.sort()
print(f"import {t_imp:.2f}s open {t_open:.2f}s; {len(lat)} queries: median {statistics.median(lat):.1f} ms p95 {lat[int(0.95*len(lat))-1]:.1f} ms p99 {lat[int(0.99*len(lat))-1]:.1f} ms; zero-result 0")
