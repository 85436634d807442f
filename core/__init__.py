"""seek's shared toolbox: pure text, rarity, fusion, dedup and retrieval helpers used by both engines."""
