import json, pickle, numpy as np
from pathlib import Path
from core.embed import make_embedder, CachedEmbedder
from slidesearch.model import slide_document, snippet
from slidesearch.ingest import read_slidevqa
qs=json.load(open("/work/shared/data/slidevqa/slide_vqa_question_answer_docid_list.json"))
slides=read_slidevqa(Path("/work/shared/data")); full=[slide_document(s.title,s.text) for s in slides]
out={}
for name in ("minilm-full",):
    e=CachedEmbedder(make_embedder(name), Path("/tmp/s2/emb.sqlite"))
    V=e.encode([snippet(d) for d in full]); Q=e.encode([q["question"] for q in qs])
    out[name]=Q@np.asarray(V).T
    print(name, "done", flush=True)
pickle.dump(out, open("/tmp/s2/dense_full.pkl","wb"))
