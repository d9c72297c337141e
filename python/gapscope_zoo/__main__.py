"""The test fixtures' models and sessions: the demo and the parity zoo.

Not part of the installed exporter (issue 57): the e2e tests and the fixture
makers run it from the source tree,

    PYTHONPATH=python python -m gapscope_zoo demo OUTDIR
    PYTHONPATH=python python -m gapscope_zoo zoo OUTDIR [--model NAME]...

with torch and ExecuTorch installed (gapscope_capture[executorch]).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from gapscope_zoo.zoo_names import MODEL_NAMES  # no torch import before --help

PROG = "python -m gapscope_zoo"


def run_zoo(outdir: str | Path, models: list[str] | None = None) -> list[Path]:
    """Write every model × variant into ``outdir/<model>/<variant>/``; returns the directories."""
    from gapscope_zoo import zoo, zoo_bn, zoo_fix, zoo_multimethod, zoo_runs, zoo_taps, zoo_torchao

    written = []
    for name in models or MODEL_NAMES:
        if name == zoo.CONV_BN:
            written.append(zoo_bn.write_session(Path(outdir) / name / zoo_bn.VARIANT))
            written.append(zoo_bn.write_fp32_session(Path(outdir) / name / zoo_bn.FP32))
            continue
        if name == "arm":
            from gapscope_zoo import zoo_arm

            for model, profile, target in zoo_arm.ZOO_SESSIONS:
                # conv-int, split-u55: a session's folder names its model and what it ran as.
                kind = profile.lower() if target == "TOSA" else target.split("-")[1]
                written.append(
                    zoo_arm.write_arm_session(
                        Path(outdir) / name / f"{model}-{kind}", profile, model_name=model, target=target
                    )
                )
            continue
        if name == zoo.FIX:
            written.append(zoo_fix.write_session(Path(outdir) / name / zoo_fix.VARIANT))
            continue
        if name == zoo.TAPS:
            for variant in zoo_taps.VARIANTS:
                written.append(zoo_taps.write_session(Path(outdir) / name / variant, variant))
            continue
        if name == zoo.TORCHAO_8DA4W:
            written.append(zoo_torchao.write_session(Path(outdir) / name / zoo_torchao.VARIANT))
            continue
        if name in zoo.MULTI_RUN:
            for variant, writer in zoo.MULTI_RUN[name]:
                written.append(getattr(zoo_runs, writer)(Path(outdir) / name / variant))
            continue
        if name == zoo.MULTI_METHOD:
            for variant in zoo_multimethod.VARIANTS:
                written.append(zoo_multimethod.write_session(Path(outdir) / name / variant, variant))
            continue
        for variant in zoo.VARIANTS:
            written.append(zoo.write_session(Path(outdir) / name / variant, name, variant))
    return written


def _run_demo(args: argparse.Namespace) -> int:
    from gapscope_zoo.demo import run_demo

    started = time.monotonic()
    for directory in run_demo(args.outdir):
        print(directory)
    print(f"demo written in {time.monotonic() - started:.1f} s", file=sys.stderr)
    return 0


def _run_zoo(args: argparse.Namespace) -> int:
    started = time.monotonic()
    for directory in run_zoo(args.outdir, args.model or None):
        print(directory)
    print(f"zoo written in {time.monotonic() - started:.1f} s", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description="Write the test fixtures' sessions.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    demo = commands.add_parser(
        "demo",
        help="build the demo session (fp32 and int8 XNNPACK variants)",
        description="Lower a tiny seeded model to XNNPACK as fp32 and PT2E int8, run it with "
        "ETDump and a debug buffer, and write into OUTDIR/<variant>/: model.pte, etrecord.bin, "
        "run.etdp, run.debug.bin, capture.gscap.safetensors, executorch_gap_{mse,l1,snr}.json "
        "and manifest.json; int8 also capture_float.gscap.safetensors, the float model "
        "captured under the int8 capture's debug handles.",
    )
    demo.add_argument("outdir", metavar="OUTDIR", type=Path)
    demo.set_defaults(run=_run_demo)

    zoo = commands.add_parser(
        "zoo",
        help="build the parity zoo (real models, portable / XNNPACK fp32 / XNNPACK int8, "
        "and a two-method LLM)",
        description="Lower each zoo model (seeded, nothing downloaded) three ways, run it with "
        "ETDump, capture it and write ExecuTorch's calculate_numeric_gap tables into "
        "OUTDIR/<model>/<variant>/ (executorch_error.txt where ExecuTorch raises). 'llm' is one "
        "program with two methods (prefill, forward), portable and fp32, with a capture and "
        "ExecuTorch's tables per method (each method exported alone, as ExecuTorch cannot "
        "inspect a multi-method program).",
    )
    zoo.add_argument("outdir", metavar="OUTDIR", type=Path)
    zoo.add_argument(
        "--model", action="append", choices=MODEL_NAMES, help="only this model (repeatable)"
    )
    zoo.set_defaults(run=_run_zoo)

    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
