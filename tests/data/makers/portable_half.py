"""Writes tests/data/portable_half: a float16 program (model.half()) run with ETDump.

ExecuTorch 1.5's ETDumpGen cannot log a float16 tensor (its schema has no Half):
the run prints "This ScalarType = 5 is not yet supported in ETDump" and writes an
ETDump that is no valid FlatBuffer. The session pins how Gapscope says so.

usage: PYTHONPATH=python python portable_half.py OUTDIR   (in a venv with the exporter, torch 2.13.0,
executorch 1.5.1). The model file is not kept: the tests read only the session.
"""
import sys
from pathlib import Path

import torch
from torch.export import export

from gapscope_capture.capture import capture_from_etrecord
from gapscope_capture.host_run import lower_and_run


class Head(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.l1 = torch.nn.Linear(16, 32)
        self.l2 = torch.nn.Linear(32, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.l2(torch.relu(self.l1(x))).softmax(-1)


out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
torch.manual_seed(0)
model = Head().eval().half()
inputs = (torch.randn(2, 16).half(),)
lower_and_run(out, export(model, inputs), inputs, [], 64 << 10)
capture_from_etrecord(out / "etrecord.bin").write(out / "capture.gscap.safetensors")
(out / "model.pte").unlink()
print("ok")
