"""Text that python-pptx's text frames do not give: SmartArt, charts, pictures (OCR), PDF pages, titles.

Each reader returns plain strings; ``slidesearch.ingest`` puts them in their own ``Slide``
fields so a match can say where it came from (a picture, a diagram, a chart, the notes).
"""
