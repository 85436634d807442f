import pytest
from system_tools import require_tool


def test_a_missing_tool_skips_with_the_install_line(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install -y no-such-package"):
        require_tool("no-such-tool-here", package="no-such-package")


def test_a_missing_tool_fails_under_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="no-such-tool-here is not installed"):
        require_tool("no-such-tool-here", package="no-such-package")


def test_a_present_tool_is_found_by_its_first_name_on_path():
    assert require_tool("no-such-tool-here", "sh", package="dash").endswith("/sh")
