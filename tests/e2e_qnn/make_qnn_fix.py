"""gapscope-capture fix on the QNN 8a8w attention block (issue 59), on the HTP simulator.

usage: make_qnn_fix.py OUT [TARGET [SOC]]

The attention block of make_qnn_session.py at 8a8w, its float program and
inputs saved, then `gapscope-capture fix --recipe qnn-8a8w`: each part (module
or op outside a module) kept at 16a8w on its own, lowered with ExecuTorch's
Qualcomm backend and run on the HTP simulator, and the greedy search to TARGET
(default snr=30). Also runs the whole block at 16a8w, the ceiling one part can
approach: OUT/full_16a8w.json. Run it with the kit's venv after sourcing its env.sh.
"""
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_qnn_session import Attention  # noqa: E402

from gapscope_capture.capture_format import write_inputs  # noqa: E402
from gapscope_capture.cli import main as capture_main  # noqa: E402


def main() -> int:
    out = Path(sys.argv[1])
    target = sys.argv[2] if len(sys.argv) > 2 else "snr=30"
    soc = sys.argv[3] if len(sys.argv) > 3 else "SM8650"
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    model = Attention().eval()
    x = (Attention.example(),)
    calibration = [x] + [(Attention.example(),) for _ in range(7)]
    torch.export.save(torch.export.export(model, x), str(out / "float.pt2"))
    write_inputs(list(x), out / "inputs.safetensors")
    argv = ["fix", str(out / "float.pt2"), "-o", str(out / "fix"), "--recipe", "qnn-8a8w", "--soc", soc]
    argv += ["--target", target, "--inputs", str(out / "inputs.safetensors"), "--budget", "400"]
    for i, batch in enumerate(calibration):
        write_inputs(list(batch), out / f"calibration-{i}.safetensors")
        argv += ["--calibration", str(out / f"calibration-{i}.safetensors")]
    status = capture_main(argv)

    # The ceiling: every part at 16a8w, run the same way.
    from gapscope_capture.fix import Target, _Runner, quantizable_modules
    from gapscope_capture.fix_recipes import QnnPT2E

    program = torch.export.load(str(out / "float.pt2"))
    recipe = QnnPT2E(soc=soc)
    runner = _Runner(program, x, calibration, recipe, Target.parse(target))
    everything = [m for m in quantizable_modules(program, recipe) if "." not in m]
    full = runner.run(everything)
    (out / "full_16a8w.json").write_text(
        json.dumps({"keep": everything, "output_snr_db": full.output_snr_db, "error": full.error}, indent=1) + "\n"
    )
    print(f"fix exit {status}; every part at 16a8w: {full.output_snr_db} dB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
