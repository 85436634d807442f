from tenturns.agents.phrase import TenTurnsAgent, TenTurnsConfig
from tenturns.datasets import resolve_dataset
from tenturns.evaluate import evaluate_agent
for name in ["public-sample", "public-50k", "synthetic-1", "synthetic-2", "synthetic-3"]:
    ds = resolve_dataset(name)
    out = []
    for cc in (True, False):
        r = evaluate_agent(lambda p, cc=cc: TenTurnsAgent(p, TenTurnsConfig(card_consistency=cc)), ds.catalog_path, ds.sessions_path)
        worst = min(m.technical_score for m in r.per_scenario.values()) if hasattr(next(iter(r.per_scenario.values())), "technical_score") else None
        out.append(f"cc={cc}: TS {r.technical_score:.6f} HR {r.hr10:.3f} MRR {r.mrr:.6f} MTTC {r.mttc:.3f} worst {worst}")
    print(name, " | ".join(out), flush=True)
