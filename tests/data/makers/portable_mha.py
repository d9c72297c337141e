import json, sys
from pathlib import Path
import torch
from torch.export import export
from executorch.exir import to_edge_transform_and_lower
from executorch.devtools import Inspector
from executorch.extension.pybindings.portable_lib import _load_for_executorch
from gapscope_capture.capture import capture_from_etrecord
from gapscope_zoo.demo import gap_rows

class Block(torch.nn.Module):
    def __init__(self, d=16, heads=2):
        super().__init__()
        self.norm1 = torch.nn.LayerNorm(d)
        self.attn = torch.nn.MultiheadAttention(d, heads, batch_first=True)
        self.norm2 = torch.nn.LayerNorm(d)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(d, 2 * d), torch.nn.GELU(), torch.nn.Linear(2 * d, d))
    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))

out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
torch.manual_seed(0)
model = Block().eval(); inputs = (torch.randn(1, 5, 16),)
edge = to_edge_transform_and_lower(export(model, inputs), generate_etrecord=True)
program = edge.to_executorch()
et = program.get_etrecord(); et.update_representative_inputs(inputs); et.save(str(out / "etrecord.bin"))
(out / "model.pte").write_bytes(program.buffer)
rt = _load_for_executorch(str(out / "model.pte"), enable_etdump=True, debug_buffer_size=64 << 10)
rt.forward(inputs)
rt.write_etdump_result_to_file(str(out / "run.etdp"), str(out / "run.debug.bin"))
capture_from_etrecord(out / "etrecord.bin").write(out / "capture.gscap.safetensors")
insp = Inspector(etdump_path=str(out / "run.etdp"), etrecord=str(out / "etrecord.bin"), debug_buffer_path=str(out / "run.debug.bin"))
for metric in ("MSE", "L1", "SNR"):
    (out / f"executorch_gap_{metric.lower()}.json").write_text(json.dumps(gap_rows(insp.calculate_numeric_gap(metric)), indent=2) + "\n")
print("ok")
