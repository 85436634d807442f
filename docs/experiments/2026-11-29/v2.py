import sys, json, time
from tenturns.evaluate import evaluate_agent, technical_score
from tenturns.datasets import resolve_dataset, DATASETS
from tenturns.agents.phrase import TenTurnsAgent, TenTurnsConfig
variants = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {"default": {}}
names = sys.argv[2].split(",") if len(sys.argv) > 2 else list(DATASETS)
for ds in names:
    d = resolve_dataset(ds)
    for name, kw in variants.items():
        agent = kw.pop("_agent", None) if isinstance(kw, dict) else None
        if agent:
            spec = agent
        else:
            cfg = TenTurnsConfig(**kw)
            spec = (lambda cfg: (lambda p: TenTurnsAgent(p, config=cfg)))(cfg)
        r = evaluate_agent(spec, d.catalog_path, d.sessions_path)
        if agent: kw["_agent"] = agent
        sc = " ".join(f"{k[:5]}:{technical_score(v.hr10, v.mrr, v.mttc)[1]:.3f}" for k, v in r.per_scenario.items())
        print(f"{ds:14s} {name:10s} HR {r.hr10:.6f} MRR {r.mrr:.6f} MTTC {r.mttc:.6f} TS {r.technical_score:.6f} build {r.build_seconds:.2f}s play {r.wall_seconds - r.build_seconds:.2f}s tok {r.prompt_tokens}+{r.completion_tokens} | {sc}", flush=True)
