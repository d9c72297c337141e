"""Writes tests/data/executorch_layout: a session folder as ExecuTorch's tutorials and
runners leave it (etdump.etdp, debug_output.bin, model.pte, etrecord.bin, inputs.pt), plus
the AOT capture, for the folder-opening tests (issue 27).

usage: PYTHONPATH=python python executorch_layout.py OUTDIR   (in a venv with the exporter, torch 2.13.0,
executorch 1.5.1). The demo's int8 XNNPACK variant, written under ExecuTorch's names; the
model's inputs saved with torch.save as the runners' inputs.pt. The tests copy the folder
and rename debug_output.bin to debug_buffer.bin for the other name.
"""
import sys
from pathlib import Path

import torch

import gapscope_zoo.demo as demo

out = Path(sys.argv[1])
demo.ETDUMP = "etdump.etdp"
demo.DEBUG_BUFFER = "debug_output.bin"
demo.DEBUG_BUFFER_SIZE = 16 << 10  # what the run writes, with room; keeps the fixture small
demo.write_variant(out, "int8")
_, inputs = demo.seeded_model_and_inputs()
torch.save(inputs, out / "inputs.pt")
for extra in ("capture_float.gscap.safetensors", "manifest.json", "executorch_gap_l1.json",
              "executorch_gap_snr.json"):
    (out / extra).unlink(missing_ok=True)
print("ok")
