"""Per-stage median ms of search_v2 over the generated queries on the SEEK_HOME index (trace=True), two passes."""
import json, statistics, time
from slidesearch.library import Library
from slidesearch.engine import SlideSearch
lib = Library.open(); eng = SlideSearch(lib)
qs = [json.loads(l) for l in open('/work/big/gen/queries.jsonl')]
eng.search_v2("warm up query analytics")
for p in range(2):
    st = {}; tot = []
    for q in qs:
        t = time.perf_counter(); r = eng.search_v2(q["query"], universes=q.get("universes"), trace=True); tot.append((time.perf_counter() - t) * 1000)
        for s in r.trace: st.setdefault(s.stage, []).append(s.ms)
    print(f"pass {p}: median {statistics.median(tot):.1f} ms; " + ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in st.items() if statistics.median(v) >= 0.5))
