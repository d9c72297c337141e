"""Writes tests/data/arm_tosa_{fp32,int8,nhwc_fp32} and arm_ethosu_split_int8: small models lowered to TOSA,
run on the reference model.

The design note's toy (conv2d, relu, flatten, linear on 1x3x16x16), lowered by
ExecuTorch 1.5.1's Arm backend for the FP and the INT profile as its Arm tests
do, run on the TOSA reference model from tosa-tools 2026.5.0 with every op kept
(gapscope_zoo.zoo_arm.write_arm_session; docs/arm.md). arm_tosa_nhwc_fp32 is
the residual conv net (ArmResidualConvNet), whose tensors between its
convolutions are channels-last with C = H = W. arm_ethosu_split_int8 is
ArmSplitConvNet lowered for the Ethos-U55 (EthosUPartitioner): two NPU
delegates with a sort on the CPU between them. The model file and the inputs
are not kept: the tests read the session.

usage: PYTHONPATH=python python arm_tosa.py OUTDIR   (in a venv with the exporter's executorch and arm
extras). Writes those four folders into OUTDIR.
"""
import shutil
import sys
from pathlib import Path

from gapscope_zoo.zoo_arm import write_arm_session

out = Path(sys.argv[1])
for profile, name, model, target in (
    ("FP", "arm_tosa_fp32", "conv", "TOSA"),
    ("INT", "arm_tosa_int8", "conv", "TOSA"),
    ("FP", "arm_tosa_nhwc_fp32", "residual", "TOSA"),
    ("INT", "arm_ethosu_split_int8", "split", "ethos-u55-128"),
):
    directory = write_arm_session(out / name, profile, model_name=model, target=target)
    for unused in ("model.pte", "inputs.safetensors"):
        (directory / unused).unlink()
    # Vela's scratch beside the Ethos-U graphs (out.tosa, output/: the last
    # delegate's, each over the one before): not the session's.
    shutil.rmtree(directory / "tosa" / "output", ignore_errors=True)
    (directory / "tosa" / "out.tosa").unlink(missing_ok=True)
print("ok")
