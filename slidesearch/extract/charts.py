"""The words of a chart: title, axis titles, series names and categories (python-pptx's chart API)."""

from __future__ import annotations

import contextlib
from typing import Any


def _frame_text(owner: Any) -> str:
    return owner.text_frame.text.strip() if owner.has_text_frame else ""


def chart_texts(chart: Any) -> list[str]:
    """Title, axis titles, series names and category labels of one chart, blanks and repeats dropped."""
    parts: list[str] = []
    if chart.has_title:
        parts.append(_frame_text(chart.chart_title))
    for axis_name in ("category_axis", "value_axis"):
        try:
            axis = getattr(chart, axis_name)
        except (ValueError, KeyError, AttributeError):  # pie and doughnut charts have no axes
            continue
        if axis.has_title:
            parts.append(_frame_text(axis.axis_title))
    for plot in chart.plots:
        parts.extend(str(series.name or "").strip() for series in plot.series)
        # A plot whose category cache is absent or malformed has no readable categories.
        with contextlib.suppress(ValueError, KeyError, AttributeError, IndexError):
            parts.extend(str(c).strip() for c in plot.categories)
    return list(dict.fromkeys(p for p in parts if p))
