"""A tapped decode of N steps, kept as a long decode is on a device (issue 58).

STATS taps over the KV decoder's linears (gapscope_zoo.zoo_taps.write_tapped_decoder),
an ETDump of timings only (no debug buffer, so no debug event), the method's
outputs saved per execution (outputs.safetensors), and a step capture with the
taps for each execution. Then time ``gapscope-cli compare OUT --all-runs``.
Issue 58 measured 1,000 steps: 651 KB of saved outputs, and --all-runs over
every step in 56 s at 275 MB peak on a Debug build (docs/your-model.md).

usage: PYTHONPATH=python python bench/tapped_decode.py OUT [STEPS=1000]
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

from executorch.extension.pybindings.portable_lib import _load_for_executorch

from gapscope_capture.capture_format import step_capture_name
from gapscope_capture.taps import iter_tap_steps, save_outputs
from gapscope_zoo.zoo_taps import write_tapped_decoder


def main() -> None:
    out = Path(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    shutil.rmtree(out, ignore_errors=True)
    specs, steps = write_tapped_decoder(out, n)
    runtime = _load_for_executorch(str(out / "model.pte"), enable_etdump=True, debug_buffer_size=0)
    started = time.monotonic()
    device = [[t.clone() for t in runtime.forward(inputs)] for inputs in steps]
    runtime.write_etdump_result_to_file(str(out / "run.etdp"), str(out / "unused.debug.bin"))
    (out / "unused.debug.bin").unlink(missing_ok=True)
    print(f"ran {n} steps in {time.monotonic() - started:.1f} s")
    started = time.monotonic()
    for step in iter_tap_steps(out / "etrecord.bin", specs, steps):
        step.write(out / step_capture_name(step.method, step.step))
    print(f"captured {n} steps in {time.monotonic() - started:.1f} s")
    save_outputs(device, out / "outputs.safetensors")


if __name__ == "__main__":
    main()
