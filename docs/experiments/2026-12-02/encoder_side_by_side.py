"""#19: run the harness with the *reference* encoder, all-MiniLM-L6-v2 in fp32 at 128 tokens (sentence-transformers).

The shipped ``minilm`` (ONNX Runtime, int8 weights, fp32 activations) and the earlier ``minilm-torch``
(torch dynamic int8: activations quantised per batch) both approximate this model; this run says
which of the two rankings is the model's own. It registers the fp32 encoder under the settings name
``minilm-full`` for this process only (that name's own encoder reads 256 tokens), then runs ``seek eval``.

Usage: SEEK_HOME=... SEEK_EMBEDDER=minilm-full python docs/experiments/2026-12-02/encoder_side_by_side.py eval run --suite slides
"""

from __future__ import annotations

import sys

from core import embed


def main() -> None:
    embed._EMBEDDERS["minilm-full"] = embed.MiniLMEmbedder(quantize=False, max_tokens=embed.MINILM_MAX_TOKENS)
    from cli.main import app

    sys.argv = ["seek", *sys.argv[1:]]
    app()


if __name__ == "__main__":
    main()
