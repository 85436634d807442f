import re

from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()


def _listed_commands(help_text):
    """First word of each row in the help's Commands panel."""
    panel = help_text.split("Commands")[1]
    return {m.group(1) for m in re.finditer(r"^[│|]\s(\w[\w-]*)\s", panel, flags=re.M)}


def test_help_lists_every_command_group():
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0, result.output
    assert _listed_commands(result.output) >= {"slides", "turns", "eval", "bench", "doctor", "demo"}


def test_no_arguments_shows_the_help():
    result = runner.invoke(app, [])
    assert "Usage: seek" in result.output
    assert "doctor" in _listed_commands(result.output)
