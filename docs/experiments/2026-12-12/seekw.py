"""Run the CLI with the pair's mpnet share set by MPNET_W (the 0.75 sweep: MPNET_W=0.75 python seekw.py eval run --datasets ... --config sweep3.json; derive_cache.py first)."""
import sys, os
import core.embed as e
w = float(os.environ["MPNET_W"]); e.JOINT_WEIGHTS = (1 - w, w)
from cli.main import app
sys.argv = ["seek"] + sys.argv[1:]
app()
