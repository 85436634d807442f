"""#17, 2026-12-07: merge the helpers' pooled grades (GRADES.partN.jsonl) into eval/data/slidevqa_topical.jsonl as each
row's ``pooled`` object (every row gets one, {} when its pool held no new slide). Checks that every pooled pair was
graded exactly once. Usage: python docs/experiments/2026-12-13/merge_pool.py POOL_DIR"""
import collections
import glob
import json
import sys
from pathlib import Path

pool_dir = Path(sys.argv[1])
asked = [json.loads(l) for f in sorted(glob.glob(str(pool_dir / "topical.part*.jsonl"))) for l in open(f, encoding="utf-8")]
graded = [json.loads(l) for f in sorted(glob.glob(str(pool_dir / "grades.part*.jsonl"))) for l in open(f, encoding="utf-8")]
want = collections.Counter((r["query_id"], r["slide_id"]) for r in asked)
got = collections.Counter((r["query_id"], r["slide_id"]) for r in graded)
assert want == got and max(got.values()) == 1, (len(want), len(got), set(want) ^ set(got))
assert all(isinstance(r["grade"], int) and 0 <= r["grade"] <= 3 for r in graded)
pooled = collections.defaultdict(dict)
for r in graded:
    pooled[r["query_id"]][r["slide_id"]] = r["grade"]
path = Path("eval/data/slidevqa_topical.jsonl")
rows = [json.loads(l) for l in path.read_text(encoding="utf-8").splitlines() if l.strip()]
for row in rows:
    row["pooled"] = dict(sorted(pooled[row["query_id"]].items(), key=lambda kv: (-kv[1], kv[0])))
tmp = path.with_suffix(".tmp")
tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
tmp.replace(path)
print(f"{len(graded)} pooled grades merged into {len(rows)} rows:", dict(sorted(collections.Counter(r['grade'] for r in graded).items())))
