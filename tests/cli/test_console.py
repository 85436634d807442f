import json
import subprocess
import sys
import textwrap

from cli.console import native_output_to_stderr

SCRIPT = textwrap.dedent("""
    import os
    from cli.console import console, native_output_to_stderr, print_json
    moved = native_output_to_stderr()
    again = native_output_to_stderr()
    os.write(1, b"E1204 native log line on descriptor 1\\n")  # what Ray's C++ core does after a lost node
    print("(raylet) Task submit failed")  # what Ray's driver prints on sys.stdout
    print_json({"moved": moved, "again": again})
    console.print("a human line for stdout")
    os.write(1, b"another native line while exiting\\n")
""")


def test_native_writes_to_descriptor_1_go_to_stderr_and_the_json_report_stays_alone_on_stdout():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60, check=True)
    report, end = json.JSONDecoder().raw_decode(done.stdout)
    assert report == {"moved": True, "again": False}
    assert done.stdout[end:].strip() == "a human line for stdout"
    assert "native log line" in done.stderr and "(raylet)" in done.stderr and "while exiting" in done.stderr


def test_nothing_moves_when_stdout_is_not_descriptor_1(capsys):
    # pytest's capture (like typer's CliRunner) stands in for sys.stdout: its descriptors are left alone.
    assert native_output_to_stderr() is False
