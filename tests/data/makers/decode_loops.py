"""Writes tests/data/decode_loop_portable and decode_loop_int8: the zoo's KV-cache decode loop, 6 executions.

The same loop as the zoo's ``decode-loop`` (a prefill token and 5 decode steps
instead of 16, to keep the fixtures small): in float on the portable kernels,
each execution against its own step capture; and in PT2E int8 on the portable
and quantised kernels, each execution against the float model's step. The
widget tests open one beside the other (the A/B of two decode loops).

usage: PYTHONPATH=python python decode_loops.py TESTS_DATA_DIR   (in a venv with the exporter, torch 2.13.0,
executorch 1.5.1). The model files are not kept: the tests read only the sessions.
"""
import sys
from pathlib import Path

import gapscope_zoo.zoo_runs as zoo_runs

data = Path(sys.argv[1])
zoo_runs.DEBUG_BUFFER_SIZE = 256 << 10  # what the runs write, with room; keeps the fixtures small
for name, writer in (("decode_loop_portable", zoo_runs.write_decode_loop),
                     ("decode_loop_int8", zoo_runs.write_decode_loop_int8)):
    out = writer(data / name, decode_steps=5)
    (out / "model.pte").unlink()
    single = out / "capture.gscap.safetensors"  # the float loop's single capture: steps only here
    if single.exists():
        single.unlink()
print("ok")
