"""Writes tests/data/xnnpack_elementwise_int8: the zoo's elementwise model, PT2E int8 on XNNPACK.

usage: PYTHONPATH=python python xnnpack_elementwise_int8.py OUTDIR   (in a venv with the exporter, torch
2.13.0, executorch 1.5.1). The model file is not kept: the tests read only the session.
"""
import sys
from pathlib import Path

import gapscope_zoo.zoo as zoo

out = Path(sys.argv[1])
zoo.DEBUG_BUFFER_SIZE = 64 << 10  # what the run writes, with room; keeps the fixture small
zoo.write_session(out, "elementwise", "int8")
(out / "model.pte").unlink()
print("ok")
