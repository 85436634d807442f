"""Ranking, spec steps 06-08: the pool, the dense and BM25 voters fused, the expansion boost, the multipliers."""
