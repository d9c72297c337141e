"""Writes tests/data/multimethod_portable: the zoo's two-method LM (prefill, forward), portable.

usage: PYTHONPATH=python python multimethod_portable.py OUTDIR   (in a venv with the exporter, torch 2.13.0,
executorch 1.5.1). The model file is not kept: the tests read only the session.
"""
import sys
from pathlib import Path

import gapscope_zoo.zoo_multimethod as zoo_multimethod

out = Path(sys.argv[1])
zoo_multimethod.DEBUG_BUFFER_SIZE = 192 << 10  # what the runs write, with room; keeps the fixture small
zoo_multimethod.write_session(out, "portable")
(out / "model.pte").unlink()
print("ok")
