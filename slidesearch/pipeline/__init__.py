"""The SlideSearch pipeline: one module per spec stage (or group of stages), each a ``run(state) -> state`` object.

``slidesearch.engine.SlideSearch`` lists them in spec order.
"""

from slidesearch.pipeline.state import Candidate, SearchState, Stage, StageCount

__all__ = ["Candidate", "SearchState", "Stage", "StageCount"]
