"""The answer, spec steps 13-16: sections, the verified blend, the quantified gate, caps, the slot, order, coverage."""
