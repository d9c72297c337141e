"""Your own model, end to end: the script of docs/your-model.md.

Export a model with an ETRecord, quantise it (PT2E int8), lower it to XNNPACK,
run it on this machine with ETDump and a debug buffer (as a device would), then
write what Gapscope compares it with: ExecuTorch's own reference, the float
model's, and the host twin (the same program without the delegate, one row per
op). Prints the commands that open the result.

usage: python your_model.py OUTDIR
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
    XNNPACKQuantizer,
    get_symmetric_quantization_config,
)
from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime
from torch import nn
from torch.export import export
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from gapscope_capture.capture import capture_float_reference, capture_from_etrecord
from gapscope_capture.host_twin import write_host_twin


# Your model's input: the inputs, the calibration batches and the export all use it.
INPUT_SHAPE = (1, 3, 32, 32)


class Classifier(nn.Module):
    """Your model: here a small conv + BatchNorm classifier with a residual block."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.block = nn.Sequential(
            nn.Conv2d(16, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16),
        )
        self.head = nn.Linear(16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        x = torch.relu(x + self.block(x))
        return self.head(nn.functional.adaptive_avg_pool2d(x, 1).flatten(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path)
    out = parser.parse_args().outdir
    out.mkdir(parents=True, exist_ok=True)

    # 1. The model in eval mode and the inputs the device will run on.
    torch.manual_seed(0)
    model = Classifier().eval()
    inputs = (torch.randn(INPUT_SHAPE),)

    # 2. Export the float model. Keep it: it is the float reference.
    float_program = export(model, inputs)
    torch.export.save(float_program, str(out / "float.pt2"))  # for gapscope-capture twin --float-program

    # 3. Quantise with PT2E (int8, XNNPACK's quantiser), calibrated on a few batches.
    prepared = prepare_pt2e(
        float_program.module(), XNNPACKQuantizer().set_global(get_symmetric_quantization_config())
    )
    with torch.no_grad():
        for _ in range(4):
            prepared(torch.randn(INPUT_SHAPE))
    quantized = export(convert_pt2e(prepared), inputs)

    # 4. Lower to XNNPACK with an ETRecord that holds the inputs (its representative inputs).
    program = to_edge_transform_and_lower(
        quantized, partitioner=[XnnpackPartitioner()], generate_etrecord=True
    ).to_executorch()
    etrecord = program.get_etrecord()
    etrecord.update_representative_inputs(inputs)
    etrecord.save(str(out / "etrecord.bin"))
    (out / "model.pte").write_bytes(program.buffer)

    # 5. Run with ETDump and a debug buffer. On a device, ExecuTorch's runners write the
    #    same two files (ETDumpGen with a debug buffer). The buffer holds every logged
    #    tensor: size it to the sum of the intermediate outputs' bytes, with room to spare.
    runtime_program = Runtime.get().load_program(
        out / "model.pte", enable_etdump=True, debug_buffer_size=16 << 20
    )
    runtime_program.load_method("forward").execute(inputs)
    runtime_program.write_etdump_result_to_file(str(out / "run.etdp"), str(out / "run.debug.bin"))

    # 6. The references: ExecuTorch's own (the quantised graph, which the device should
    #    match), and the float model's under the same debug handles (the whole int8 error).
    capture = capture_from_etrecord(out / "etrecord.bin")
    capture.write(out / "capture.gscap.safetensors")
    capture_float_reference(float_program, capture).write(out / "capture_float.gscap.safetensors")

    # 7. XNNPACK logs only the delegate's output: one row. The host twin runs the same
    #    program without the delegate here: one row per op.
    twin = write_host_twin(out / "etrecord.bin", out / "host-twin", inputs, float_program)

    print("# where quantisation loses accuracy, op by op (the twin against the float model):")
    print(f"gapscope {twin} --capture {twin}/capture_float.gscap.safetensors")
    print(f"gapscope-cli compare {twin} --capture {twin}/capture_float.gscap.safetensors --fail-above snr=10")
    print("# how far the device's delegate is from the host's kernels on the same program:")
    print(f"gapscope-cli compare {out} --capture {twin}/host_outputs.gscap.safetensors --fail-above snr=25")
    print("# how far the device is from the float model, in all (one row per delegate output):")
    print(f"gapscope {out} --capture {out}/capture_float.gscap.safetensors")


if __name__ == "__main__":
    main()
