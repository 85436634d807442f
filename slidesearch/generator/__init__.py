"""Vocabularies for the synthetic slide-library generator (slidesearch.generate)."""
