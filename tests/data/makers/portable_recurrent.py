"""Writes tests/data/portable_recurrent: the zoo's LSTM + GRU model, portable.

usage: PYTHONPATH=python python portable_recurrent.py OUTDIR   (in a venv with the exporter, torch 2.13.0,
executorch 1.5.1). The model file is not kept: the tests read only the session.
"""
import sys
from pathlib import Path

import gapscope_zoo.zoo as zoo

out = Path(sys.argv[1])
zoo.DEBUG_BUFFER_SIZE = 64 << 10  # what the run writes, with room; keeps the fixture small
zoo.write_session(out, "recurrent", "portable")
(out / "model.pte").unlink()
print("ok")
