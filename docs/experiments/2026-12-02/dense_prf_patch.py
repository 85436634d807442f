"""Dense pseudo-relevance feedback prototype: PRF_K top slides' centroid added to each angle vector with weight PRF_B."""
import os, sys
from dataclasses import replace
import numpy as np
from slidesearch.pipeline.rank import primary as pr
K = int(os.environ.get("PRF_K", "0")); B = float(os.environ.get("PRF_B", "0.5"))
BRIEF_ONLY = os.environ.get("PRF_BRIEF_ONLY", "1") == "1"
orig = pr.DenseScores.run
def run(self, state):
    out = orig(self, state)
    if K <= 0 or out.angle_cosines is None or out.angle_cosines.shape[0] == 0:
        return out
    cos = np.array(out.angle_cosines, copy=True)
    vecs = np.asarray(self.view.vectors)
    fusion = pr.Fusion(method="blend", depth=1, dense_weight=0.5, bm25_weight=0.5, rrf_k=60, brief_dense_share=0.9, brief_max_words=8)
    for j in range(cos.shape[1]):
        if BRIEF_ONLY and j < len(state.angles) and fusion.plain_blend(state.angles[j]):
            continue
        top = np.argsort(-cos[:, j], kind="stable")[:K]
        centroid = vecs[state.pool[top]].mean(axis=0)
        q = state.query_vectors[j] + B * centroid
        q = q / np.linalg.norm(q)
        cos[:, j] = pr.pool_dense_scores(self.view.vectors, state.pool, q[None, :].astype(np.float32))[:, 0]
    return replace(out, angle_cosines=cos)
pr.DenseScores.run = run
from cli.main import app
sys.argv = ["seek"] + sys.argv[1:]
app()
