"""Query understanding, spec steps 03-06b: normalise and embed the angles, classify, carve out, expand, detect names."""
