"""Writes tests/data/xnnpack_taps_int8: a tapped int8 CNN on XNNPACK (issue 58).

usage: PYTHONPATH=python python xnnpack_taps_int8.py OUTDIR   (in a venv with the exporter, torch
2.13.0, executorch 1.5.1). The model file is not kept: the tests read only the session.
"""
import sys
from pathlib import Path

import gapscope_zoo.zoo_taps as zoo_taps

out = Path(sys.argv[1])
zoo_taps.DEBUG_BUFFER_SIZE = 96 << 10  # what the run writes, with room; keeps the fixture small
zoo_taps.write_session(out, "full")
(out / "model.pte").unlink()
print("ok")
