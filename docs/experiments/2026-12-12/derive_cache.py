"""One-off: rows of the weighted MiniLM+mpnet cache name derived from the equal-weight rows (no model call)."""
import sqlite3, hashlib, sys, numpy as np
w = float(sys.argv[1]); db = sqlite3.connect('/work/evalhome/cache/eval_embeddings.sqlite')
old = "minilm-l6-v2-onnx-int8w-t128+mpnet-base-v2-fp32-t128"
new = f"minilm-l6-v2-onnx-int8w-t128*{1-w:g}+mpnet-base-v2-fp32-t128*{w:g}"
# keys are sha1(name \0 text): texts are not stored, so re-key through the texts of the eval datasets
from eval.datasets import load_slides_dataset
from eval.slides_run import build_library
texts = set()
for name in sys.argv[2].split(","):
    ds = load_slides_dataset(name); lib, _ = build_library(ds, "minilm")
    texts |= set(lib.snippets) | set(lib.taxonomy) | set(m.document for m in lib.master)
    texts |= {q.text if isinstance(q.text, str) else a for q in ds.queries for a in ([q.text] if isinstance(q.text, str) else q.text)}
k = lambda n, t: hashlib.sha1(f"{n}\0{t}".encode()).hexdigest()
rows = []; miss = 0
for t in texts:
    r = db.execute("SELECT vec FROM vectors WHERE key=?", (k(old, t),)).fetchone()
    if r is None: miss += 1; continue
    v = np.frombuffer(r[0], dtype=np.float32) * np.float32(np.sqrt(2))
    a, b = v[:384], v[384:]
    rows.append((k(new, t), np.hstack([a*np.float32(np.sqrt(1-w)), b*np.float32(np.sqrt(w))]).astype(np.float32).tobytes()))
db.executemany("INSERT OR IGNORE INTO vectors VALUES (?, ?)", rows); db.commit()
print("derived", len(rows), "missing", miss)
