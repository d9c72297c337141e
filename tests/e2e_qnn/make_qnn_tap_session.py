"""A tapped QNN 8a8w session (issue 58): ExecuTorch's intermediate-output tap on the HTP simulator.

usage: make_qnn_tap_session.py OUT [SOC]

The recipe of docs/your-model.md ("Inside a delegate, on the device") for QNN: a
conv net's float program is tapped (``gapscope_capture.taps.tap``: conv and
linear whole, every other op with statistics) before QNN's quantizer, lowered
with ``to_edge_transform_and_lower_to_qnn``, stripped of its tap ops, run once
with ETDump, and captured with ``capture_taps``. OUT receives model.pte,
etrecord.bin, run.etdp, run.debug.bin, taps.json, capture.gscap.safetensors and
executorch_taps.json: ExecuTorch's ``compare_aot_runtime_dataframe`` on the
runtime's outputs against the quantised program's (the referee). Run it with
the kit's venv after sourcing its env.sh.
"""
import json
import math
import sys
from pathlib import Path

import torch
from executorch.backends.qualcomm.export_utils import make_quantizer
from executorch.backends.qualcomm.quantizer.quantizer import QuantDtype
from executorch.backends.qualcomm.serialization.qc_schema import QcomChipset
from executorch.backends.qualcomm.utils.utils import (
    generate_htp_compiler_spec,
    generate_qnn_executorch_compiler_spec,
    get_qnn_context_binary_alignment,
    to_edge_transform_and_lower_to_qnn,
)
from executorch.devtools.intermediate_output_tap import (
    FULL_TENSOR,
    STATS,
    compare_aot_runtime_dataframe,
    select_all_call_function,
    select_by_op_type,
    strip_taps_,
)
from executorch.exir.capture._config import ExecutorchBackendConfig
from executorch.exir.passes.memory_planning_pass import MemoryPlanningPass
from executorch.extension.pybindings.portable_lib import _load_for_executorch
from torch.utils._pytree import tree_leaves
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from gapscope_capture.taps import capture_taps, save_tap_specs, tap

DEBUG_BUFFER = 4 << 20


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8 * 8 * 8, 10)

    def forward(self, x):
        y = torch.relu(self.conv1(x))
        y = torch.relu(self.conv2(y))
        return self.fc(y.flatten(1))


def _json(v):
    return repr(v) if isinstance(v, float) and not math.isfinite(v) else v


def main() -> None:
    out = Path(sys.argv[1])
    soc = sys.argv[2] if len(sys.argv) > 2 else "SM8650"
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    model = Net().eval()
    x = (torch.randn(1, 3, 8, 8),)
    calibration = [x] + [(torch.randn(1, 3, 8, 8),) for _ in range(7)]

    program, specs = tap(
        torch.export.export(model, x, strict=False),
        [(select_by_op_type("aten.conv2d.default", "aten.linear.default"), FULL_TENSOR),
         (select_all_call_function(), STATS)],
    )
    save_tap_specs(specs, out / "taps.json")
    prepared = prepare_pt2e(program.module(), make_quantizer(quant_dtype=QuantDtype.use_8a8w, soc_model=soc))
    with torch.no_grad():
        for batch in calibration:
            prepared(*batch)
    quantized = convert_pt2e(prepared)
    with torch.no_grad():
        aot = tree_leaves(quantized(*x))

    compile_spec = generate_qnn_executorch_compiler_spec(
        soc_model=getattr(QcomChipset, soc),
        backend_options=generate_htp_compiler_spec(use_fp16=False),
        dump_intermediate_outputs=True,
    )
    edge = to_edge_transform_and_lower_to_qnn(quantized, x, compile_spec, generate_etrecord=True)
    strip_taps_(edge)
    config = ExecutorchBackendConfig(
        memory_planning_pass=MemoryPlanningPass(alloc_graph_input=True, alloc_graph_output=True),
        segment_alignment=get_qnn_context_binary_alignment(),
    )
    executorch_program = edge.to_executorch(config=config)
    with open(out / "model.pte", "wb") as f:
        executorch_program.write_to_file(f)
    etrecord = executorch_program.get_etrecord()
    etrecord.update_representative_inputs(x)
    etrecord.save(str(out / "etrecord.bin"))

    runtime = _load_for_executorch(str(out / "model.pte"), enable_etdump=True, debug_buffer_size=DEBUG_BUFFER)
    device = list(runtime.run_method("forward", x))
    runtime.write_etdump_result_to_file(str(out / "run.etdp"), str(out / "run.debug.bin"))

    capture_taps(out / "etrecord.bin", specs).write(out / "capture.gscap.safetensors")
    frame = compare_aot_runtime_dataframe(specs, aot, device)
    rows = [{k: _json(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]
    (out / "executorch_taps.json").write_text(json.dumps(rows, indent=1) + "\n")
    print(f"{len(specs)} taps, {len(device)} outputs written to {out}")


if __name__ == "__main__":
    main()
