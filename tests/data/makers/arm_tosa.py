"""Writes tests/data/arm_tosa_fp32 and tests/data/arm_tosa_int8: the Arm toy lowered to TOSA, run on the reference model.

The design note's toy (conv2d, relu, flatten, linear on 1x3x16x16), lowered by
ExecuTorch 1.5.1's Arm backend for the FP and the INT profile as its Arm tests
do, run on the TOSA reference model from tosa-tools 2026.5.0 with every op kept
(gapscope_zoo.zoo_arm.write_arm_session; docs/arm.md). The model file and the
inputs are not kept: the tests read the session.

usage: PYTHONPATH=python python arm_tosa.py OUTDIR   (in a venv with the exporter's executorch and arm
extras). Writes OUTDIR/arm_tosa_fp32 and OUTDIR/arm_tosa_int8.
"""
import sys
from pathlib import Path

from gapscope_zoo.zoo_arm import write_arm_session

out = Path(sys.argv[1])
for profile, name in (("FP", "arm_tosa_fp32"), ("INT", "arm_tosa_int8")):
    directory = write_arm_session(out / name, profile)
    for unused in ("model.pte", "inputs.safetensors"):
        (directory / unused).unlink()
print("ok")
