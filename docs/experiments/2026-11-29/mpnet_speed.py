"""Encoding speed: MiniLM int8 vs all-mpnet-base-v2 fp32 / int8 at 128 tokens (256 SlideVQA snippets, then 50 one-question calls on 1 thread)."""
import time, os, torch, numpy as np
os.environ["HF_HUB_OFFLINE"]="1"
from sentence_transformers import SentenceTransformer
from core.embed import _quantize_linear_int8, MiniLMEmbedder
from eval.datasets import load_slidevqa
from pathlib import Path
MPNET = os.environ.get("MPNET_DIR", "/tmp/mp/all-mpnet-base-v2")
from slidesearch.model import slide_document, snippet
ds=load_slidevqa(Path("/work/shared/data/slidevqa"))
sn=[snippet(slide_document(s.title,s.text)) for s in ds.docs][:256]
qs=[q.text for q in ds.queries][:50]
for name,m in [("minilm",MiniLMEmbedder()._model),("mpnet-fp32",SentenceTransformer(MPNET,device="cpu")),("mpnet-int8",None)]:
    if m is None:
        m=_quantize_linear_int8(SentenceTransformer(MPNET,device="cpu"))
    m.max_seq_length=128
    t=time.time(); m.encode(sn,batch_size=64); d=time.time()-t
    torch.set_num_threads(1)
    ts=[]
    for q in qs:
        t=time.time(); m.encode([q]); ts.append(time.time()-t)
    torch.set_num_threads(2)
    print(name, f"{len(sn)/d:.1f} slides/s", f"query median {np.median(ts)*1000:.1f} ms p95 {np.percentile(ts,95)*1000:.1f}",flush=True)
