"""Comparing answers across processes: the same cards in the same order, scores equal to float32 precision.

The engine's scores are float32 cosines summed in float64; a second process (another thread count, another
BLAS blocking) may differ in the last bits (0.8835717644983688 against 0.8835717706247737) without any
change a user could see. Ids, order, sections and text must be identical; numbers agree to 1e-6 relative.
"""

import math


def differences(a: object, b: object, path: str = "") -> list[str]:
    """Where ``a`` and ``b`` differ (an empty list when they are the same answer)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return [] if type(a) is type(b) and a == b else [f"{path}: {a!r} != {b!r}"]
    if isinstance(a, int | float) and isinstance(b, int | float):
        return [] if math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9) else [f"{path}: {a!r} != {b!r}"]
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            return [f"{path}: keys {list(a)} != {list(b)}"]
        return [d for key in a for d in differences(a[key], b[key], f"{path}.{key}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def assert_same_answer(a: object, b: object) -> None:
    found = differences(a, b)
    assert not found, "answers differ:\n" + "\n".join(found[:20])
