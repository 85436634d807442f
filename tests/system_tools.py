"""System tools the integration tests drive (chromium, LibreOffice, ...): found, or the test skips saying how."""

import os
import shutil

import pytest


def require_tool(*names: str, package: str) -> str:
    """The path of the first of ``names`` on PATH; missing, the test is skipped saying how to install it.

    Under CI (``CI`` set) a missing tool fails instead: ``.ci/run`` installs it (scripts/system-deps).
    """
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    message = f"{names[0]} is not installed: `sudo apt-get install -y {package}` (or run scripts/system-deps)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)
