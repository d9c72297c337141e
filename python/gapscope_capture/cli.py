"""The ``gapscope-capture`` command.

User errors (missing or invalid files, unknown reference graph, inputs the
graph rejects) end with one message on stderr and exit code 1; a traceback
means a bug.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import Sequence

from gapscope_capture import CAPTURE_FORMAT_VERSION, __version__
from gapscope_capture.cli_help import (
    FIX_HELP,
    FROM_ETRECORD_HELP,
    STAGES_HELP,
    TAPS_HELP,
    TWIN_HELP,
)

PROG = "gapscope-capture"


def entry() -> None:
    """The ``gapscope-capture`` command: ``main``, then out without Python's teardown.

    Every file the command writes is closed (and atomically renamed) before
    ``main`` returns. What is left is the interpreter's finalisation of torch
    and ExecuTorch, which took 0.9 s of CPU after an 8-layer Llama's capture
    (issue 60): as long as the capture itself. Standard streams are flushed first.
    """
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the process exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    _configure_logging()
    # Imported here: --help, --version and argument errors need neither torch nor
    # ExecuTorch (the wheel's optional "executorch" extra), nor wait for them.
    try:
        from gapscope_capture.capture import CaptureError
        from gapscope_capture.capture_format import CaptureFormatError
    except ImportError as exc:
        missing = exc.name or str(exc)
        print(
            f"{PROG}: error: {missing} is not installed; the capture commands need torch and "
            f"ExecuTorch: pip install 'gapscope_capture[executorch]=={__version__}'",
            file=sys.stderr,
        )
        return 1

    try:
        return args.run(args)
    except (CaptureError, CaptureFormatError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"{PROG}: error: {where}{exc.strerror or exc}", file=sys.stderr)
    return 1


def _run_from_etrecord(args: argparse.Namespace) -> int:
    from gapscope_capture.capture import capture_from_etrecord
    from gapscope_capture.steps import iter_steps_from_etrecord
    from gapscope_capture.capture_format import read_inputs, step_capture_name

    steps = [read_inputs(path) for path in args.inputs or []]
    if len(steps) > 1:
        # Executions in sequence, state carried: one capture per step, into a folder.
        if args.output.exists() and not args.output.is_dir():
            print(f"{PROG}: {args.output}: several --inputs write a folder of captures", file=sys.stderr)
            return 2
        args.output.mkdir(parents=True, exist_ok=True)
        # Each step written as it is captured and let go: memory stays at one step's.
        written = 0
        graph = method = None
        for result in iter_steps_from_etrecord(
            args.etrecord, steps, reference_graph=args.reference_graph, method=args.method
        ):
            result.write(args.output / step_capture_name(result.method, result.step))
            written, graph, method = written + 1, result.reference_graph, result.method
            del result
        print(
            f"{args.output}: {written} step captures of '{graph}' "
            f"(method '{method}'), state carried from step to step",
            file=sys.stderr,
        )
        return 0
    result = capture_from_etrecord(
        args.etrecord,
        inputs=steps[0] if steps else None,
        reference_graph=args.reference_graph,
        method=args.method,
    )
    result.write(args.output)
    print(
        f"{args.output}: {len(result.records)} records from '{result.reference_graph}' "
        f"(method '{result.method}')",
        file=sys.stderr,
    )
    return 0


def _run_twin(args: argparse.Namespace) -> int:
    from gapscope_capture.host_twin import HOST_OUTPUTS, write_host_twin

    refused, inputs, float_program = _folder_inputs_and_float_program(args, args.outdir)
    if refused is not None:
        return refused
    outdir = write_host_twin(args.etrecord, args.outdir, inputs, float_program)
    print(f"{outdir}: the program without delegates, run on this machine, one row per op", file=sys.stderr)
    if float_program is not None:
        print(
            f"  where quantisation loses accuracy: gapscope {outdir} --capture "
            f"{outdir / 'capture_float.gscap.safetensors'}",
            file=sys.stderr,
        )
    else:
        print(
            f"  its kernels against its own reference: gapscope {outdir} (--float-program adds the "
            "float reference)",
            file=sys.stderr,
        )
    print(
        f"  each delegate's own kernel error: gapscope-cli compare DEVICE_DIR --capture {outdir / HOST_OUTPUTS}",
        file=sys.stderr,
    )
    return 0


def _run_taps(args: argparse.Namespace) -> int:
    from gapscope_capture.capture_format import read_inputs
    from gapscope_capture.taps import capture_float_taps, capture_taps, load_tap_specs

    specs = load_tap_specs(args.specs)
    inputs = read_inputs(args.inputs) if args.inputs else None
    capture = capture_taps(args.etrecord, specs, inputs=inputs, reference_graph=args.reference_graph)
    capture.write(args.output)
    whole = sum(1 for t in capture.taps if t.reducer == "FULL_TENSOR")
    print(
        f"{args.output}: {len(capture.taps)} taps ({whole} whole, {len(capture.taps) - whole} reduced) "
        f"and {len(capture.records)} records from '{capture.reference_graph}'",
        file=sys.stderr,
    )
    if args.float_program is not None:
        float_program = _load_program(args.float_program)
        if float_program is None:
            return 1
        path = args.output.with_name(args.output.name.replace(".gscap.safetensors", "") + "_float.gscap.safetensors")
        capture_float_taps(float_program, capture, inputs).write(path)
        print(f"{path}: the float model's values of the same taps", file=sys.stderr)
    return 0


def _run_stages(args: argparse.Namespace) -> int:
    from gapscope_capture.stages import write_stages

    refused, inputs, float_program = _folder_inputs_and_float_program(args, args.outdir)
    if refused is not None:
        return refused
    written = write_stages(
        args.etrecord, args.outdir, inputs, float_program, method=args.method, host_twin=not args.no_host
    )
    for stage in written:
        if stage.path is not None:
            print(f"{stage.path}: {stage.stage}", file=sys.stderr)
        else:
            print(f"  {stage.stage}: not made: {stage.skipped}", file=sys.stderr)
    if not any(stage.path is not None for stage in written):
        print(f"{PROG}: error: no reference could be made", file=sys.stderr)
        return 1
    folder = args.outdir.parent if args.outdir.name == "stages" else "DIR"
    print(f"  the ladder: gapscope-cli compare {folder} --ladder", file=sys.stderr)
    return 0


def _run_fix(args: argparse.Namespace) -> int:
    from gapscope_capture.capture_format import read_inputs
    from gapscope_capture.fix import Target, search_fix
    from gapscope_capture.fix_output import write_fix
    from gapscope_capture.fix_recipes import RECIPES, QnnPT2E

    if args.output.exists() and not args.output.is_dir():
        print(f"{PROG}: {args.output}: not a folder", file=sys.stderr)
        return 2
    target = Target.parse(args.target)
    float_program = _load_program(args.float_program)
    if float_program is None:
        return 1
    if args.inputs:
        inputs = read_inputs(args.inputs)
    elif float_program.example_inputs is not None:
        inputs = list(float_program.example_inputs[0])
    else:
        print(f"{PROG}: error: {args.float_program} keeps no example inputs: give --inputs", file=sys.stderr)
        return 1
    calibration = [read_inputs(path) for path in args.calibration or []] or None
    report = None
    if args.report is not None:
        import json

        try:
            report = json.loads(args.report.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            print(f"{PROG}: error: {args.report}: not a Gapscope JSON report: {exc}", file=sys.stderr)
            return 1
    result = search_fix(
        float_program,
        inputs,
        QnnPT2E(soc=args.soc) if args.recipe == "qnn-8a8w" else RECIPES[args.recipe],
        target,
        calibration=calibration,
        report=report,
        budget_s=args.budget,
        max_candidates=args.max_candidates,
        progress=lambda line: print(f"  {line}", file=sys.stderr),
    )
    write_fix(result, args.output, float_program)
    best = result.best or result.baseline
    print(
        f"{args.output}: {'target met' if result.met else result.stopped}: "
        f"{', '.join(best.keep_float) or 'nothing'} kept in float "
        f"(fix.md, snippet.py; the verified run: {args.output / 'fixed'})",
        file=sys.stderr,
    )
    return 0 if result.met else 3


def _folder_inputs_and_float_program(args: argparse.Namespace, outdir: Path):
    """For the commands that write a folder from an ETRecord (twin, stages): the exit status
    when OUTDIR is a file or the float program cannot be loaded (else None), --inputs
    read, and the --float-program loaded (None when not given)."""
    from gapscope_capture.capture_format import read_inputs

    if outdir.exists() and not outdir.is_dir():
        print(f"{PROG}: {outdir}: not a folder", file=sys.stderr)
        return 2, None, None
    inputs = read_inputs(args.inputs) if args.inputs else None
    float_program = None
    if args.float_program is not None:
        float_program = _load_program(args.float_program)
        if float_program is None:
            return 1, None, None
    return None, inputs, float_program


def _load_program(path: Path):
    import torch

    try:
        return torch.export.load(str(path))
    except Exception as exc:  # torch.export.load raises many kinds on a bad file
        print(f"{PROG}: error: {path}: not a saved ExportedProgram: {exc}", file=sys.stderr)
        return None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Write Gapscope AOT capture files from ExecuTorch models.",
        # Raw: keeps the --version lines apart.
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=_version_text())
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    from_etrecord = commands.add_parser(
        "from-etrecord",
        help="capture an ETRecord's reference graph",
        description=FROM_ETRECORD_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from_etrecord.add_argument("etrecord", metavar="ETRECORD", type=Path)
    from_etrecord.add_argument(
        "--inputs",
        metavar="FILE",
        type=Path,
        action="append",
        help="safetensors file with inputs/0, inputs/1, ...; repeated, one per execution in "
        "order: the executions are captured in sequence, the buffers the program mutates (a KV "
        "cache) carried from each to the next, one capture per step into the folder -o names",
    )
    from_etrecord.add_argument(
        "--reference-graph", metavar="NAME", help="graph to capture (default: as the Inspector)"
    )
    from_etrecord.add_argument(
        "--method",
        default="forward",
        help="method of a multi-method program to capture (default: forward); each method "
        "numbers its debug handles on its own, so each needs its own capture",
    )
    from_etrecord.add_argument(
        "-o",
        "--output",
        metavar="CAPTURE",
        type=Path,
        required=True,
        help="capture file to write (a folder with several --inputs)",
    )
    from_etrecord.set_defaults(run=_run_from_etrecord)

    from gapscope_capture.cli_session import add_session_commands

    add_session_commands(commands)

    twin = commands.add_parser(
        "twin",
        help="run the program without delegates on this machine: one row per op",
        description=TWIN_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    twin.add_argument("etrecord", metavar="ETRECORD", type=Path)
    twin.add_argument("outdir", metavar="OUTDIR", type=Path)
    twin.add_argument("--inputs", metavar="FILE", type=Path, help="the inputs the device ran on")
    twin.add_argument(
        "--float-program",
        metavar="PT2",
        type=Path,
        help="the float model before quantisation (torch.export.save): adds the float reference",
    )
    twin.set_defaults(run=_run_twin)

    stages = commands.add_parser(
        "stages",
        help="every reference of the stage ladder: float model, ATen, edge, backend, host kernels",
        description=STAGES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    stages.add_argument("etrecord", metavar="ETRECORD", type=Path)
    stages.add_argument("outdir", metavar="OUTDIR", type=Path, help="the session's stages/ folder")
    stages.add_argument("--inputs", metavar="FILE", type=Path, help="the inputs the device ran on")
    stages.add_argument(
        "--float-program",
        metavar="PT2",
        type=Path,
        help="the float model before quantisation (torch.export.save): adds the float model's stage",
    )
    stages.add_argument("--method", default="forward", help="method of a multi-method program (default: forward)")
    stages.add_argument("--no-host", action="store_true", help="leave out the host kernels (no re-lowering)")
    stages.set_defaults(run=_run_stages)

    fix = commands.add_parser(
        "fix",
        help="what to keep in higher precision to meet an accuracy target, verified by runs",
        description=FIX_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fix.add_argument("float_program", metavar="FLOAT_PROGRAM", type=Path)
    fix.add_argument("-o", "--output", metavar="OUTDIR", type=Path, required=True, help="folder to write")
    fix.add_argument("--target", required=True, help="snr=DB or top1=SHARE")
    fix.add_argument(
        "--recipe", default="xnnpack-int8", choices=["xnnpack-int8", "xnnpack-int8-per-channel", "qnn-8a8w"]
    )
    fix.add_argument("--soc", default="SM8650", help="qnn-8a8w: the Qualcomm chipset (default SM8650)")
    fix.add_argument("--inputs", metavar="FILE", type=Path, help="the inputs compared on")
    fix.add_argument("--calibration", metavar="FILE", type=Path, action="append", help="a calibration batch")
    fix.add_argument("--report", metavar="JSON", type=Path, help="a gapscope-cli compare --json report")
    fix.add_argument("--budget", type=float, default=300.0, help="seconds for the search (default 300)")
    fix.add_argument("--max-candidates", type=int, default=24, help="parts tried (default 24)")
    fix.set_defaults(run=_run_fix)

    taps = commands.add_parser(
        "taps",
        help="the reference of a program tapped with ExecuTorch's intermediate-output tap",
        description=TAPS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    taps.add_argument("etrecord", metavar="ETRECORD", type=Path)
    taps.add_argument("--specs", metavar="FILE", type=Path, required=True, help="the TapSpecs (JSON)")
    taps.add_argument("--inputs", metavar="FILE", type=Path, help="the inputs the device ran on")
    taps.add_argument("--reference-graph", metavar="NAME", help="graph to capture (default: as the Inspector)")
    taps.add_argument(
        "--float-program", metavar="PT2", type=Path, help="the tapped float program (torch.export.save)"
    )
    taps.add_argument("-o", "--output", metavar="CAPTURE", type=Path, required=True, help="capture file to write")
    taps.set_defaults(run=_run_taps)
    return parser


def _version_text() -> str:
    """Gapscope's version and what the capture commands run on, without importing them."""
    from importlib import metadata

    def installed(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    return (
        f"{PROG} {__version__} (Gapscope {__version__})\n"
        f"AOT capture:  format version {CAPTURE_FORMAT_VERSION}\n"
        f"torch:        {installed('torch')} (needs 2.13.0)\n"
        f"ExecuTorch:   {installed('executorch')} (needs >=1.5,<1.6)"
    )


def _configure_logging() -> None:
    package_log = logging.getLogger("gapscope_capture")
    if not package_log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter(f"{PROG}: %(message)s"))
        package_log.addHandler(handler)
    package_log.setLevel(logging.INFO)
    package_log.propagate = False  # ExecuTorch configures the root logger too
