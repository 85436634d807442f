"""The shared tail of this folder's 07a patches: hold per-request context around ``PrimaryPass.run``, then run a script.

``around_primary_run(context)`` replaces ``PrimaryPass.run`` with one that stores ``context(self, state)`` (a dict,
or None to store nothing) in the returned dict for the length of the call; ``run_script()`` runs ``sys.argv[1]``
as ``__main__`` with the rest of the arguments.
"""
import runpy
import sys

from slidesearch.pipeline.rank import primary


def around_primary_run(context):
    held: dict = {}
    original = primary.PrimaryPass.run

    def run(self, state):
        found = context(self, state)
        if found:
            held.update(found)
        try:
            return original(self, state)
        finally:
            held.clear()

    primary.PrimaryPass.run = run
    return held


def run_script():
    sys.argv = sys.argv[1:]
    runpy.run_path(sys.argv[0], run_name="__main__")
