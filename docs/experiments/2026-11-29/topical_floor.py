"""The relevance floor re-judged on real slides: the hand-graded topical briefs run through the whole
search_v2 pipeline (not retrieve), every card judged by the labels (unlabelled = wrong), per floor share.
Run: SEEK_HOME=/work/evalhome .venv/bin/python docs/experiments/2026-11-29/topical_floor.py"""
import sys
from core.settings import get_settings
from eval.config import SlidesConfig
from eval.slides_run import run_slides_dataset
from eval.topical import load_slidevqa_topical
from slidesearch.config import SearchConfig

ds = load_slidevqa_topical(get_settings().data_dir).model_copy(update={"mode": "pipeline"})
shares = [float(x) for x in sys.argv[1:]] or [0.15, 0.3, 0.5, 0.6, 0.7]
for share in shares:
    cfg = SlidesConfig(search=SearchConfig(floor=share), explain=False)
    r = run_slides_dataset(ds, cfg)
    s = r.summary
    print(f"floor {share}: correct {s.get('correct_share', 0):.3f} 50-50 {s.get('50-50_share', 0):.3f} "
          f"wrong {s.get('wrong_share', 0):.3f} ndcg@10 {s.get('ndcg@10', 0):.4f} "
          f"cards/query {sum(i.n_results for i in r.items) / len(r.items):.1f} zero {s.get('zero_result_queries')}",
          flush=True)
