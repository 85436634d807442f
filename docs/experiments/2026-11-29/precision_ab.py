"""A/B of 07a's dense precision at the SEEK_HOME index: float32 vs bfloat16 + refine, alternating engines per query
in one process (so machine load hits both alike); median / p95 ms of search_v2 over the generated queries."""
import json, statistics, sys, time
from slidesearch.config import SearchConfig
from slidesearch.engine import SlideSearch
from slidesearch.library import Library
lib = Library.open()
engines = {p: SlideSearch(lib, config=SearchConfig(dense_precision=p)) for p in ("float32", "bfloat16")}
qs = [json.loads(l) for l in open(sys.argv[1] if len(sys.argv) > 1 else "/work/big/gen/queries.jsonl")]
for e in engines.values():
    e.search_v2("warm up query analytics")
lat = {p: [] for p in engines}
for q in qs:
    for p, e in engines.items():
        t = time.perf_counter(); e.search_v2(q["query"], universes=q.get("universes")); lat[p].append((time.perf_counter() - t) * 1000)
for p, v in lat.items():
    v.sort(); print(f"{p}: median {statistics.median(v):.1f} ms p95 {v[int(0.95 * len(v)) - 1]:.1f} ms ({len(v)} queries)")
