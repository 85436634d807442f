"""Trimming, spec steps 09-12: exact and near-duplicate dedup, the global deck cap, the relevance floor."""
