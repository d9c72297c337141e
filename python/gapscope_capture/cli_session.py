"""The exporter's commands for a device's folder (issue 60): ``for-session`` and ``serve``.

Apart from ``cli`` so that its parser stays one screen per command; both run
``session_capture.make_session_capture``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

PROG = "gapscope-capture"

_FOR_SESSION_HELP = """\
Make the reference capture of a device's folder: the ETRecord's reference graph
(as from-etrecord chooses it) run on the inputs beside the ETRecord (the one
safetensors file holding inputs/0, inputs/1, ...; without one, the ETRecord's
representative inputs), written atomically to CAPTURE, which must not exist.
gapscope-cli compare DIR --make-capture runs this command.
"""

_SERVE_HELP = """\
The desktop app's worker: imports torch and ExecuTorch at once and prints
{"event": "ready"}; then reads one JSON request on standard input,
{"etrecord": PATH, "output": PATH, "method": NAME}, prints {"event": "progress",
"stage": ..., "fraction": ...} lines and one {"event": "done", ...} or
{"event": "error", "message": ...}, and exits. An empty line or a closed input
ends it without a capture.
"""


def add_session_commands(commands: argparse._SubParsersAction) -> None:
    for_session = commands.add_parser(
        "for-session",
        help="make the reference capture of a device's folder",
        description=_FOR_SESSION_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for_session.add_argument("etrecord", metavar="ETRECORD", type=Path)
    for_session.add_argument("-o", "--output", metavar="CAPTURE", type=Path, required=True)
    for_session.add_argument("--method", default="forward", help="the method to capture (default: forward)")
    for_session.set_defaults(run=_run_for_session)

    serve = commands.add_parser(
        "serve",
        help="the desktop app's capture worker (JSON lines)",
        description=_SERVE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.set_defaults(run=_run_serve)


def _run_for_session(args: argparse.Namespace) -> int:
    from gapscope_capture.session_capture import make_session_capture

    last = [""]

    def progress(stage: str, fraction: float) -> None:
        if stage != last[0]:
            last[0] = stage
            print(f"{PROG}: {stage} ({fraction:.0%})", file=sys.stderr, flush=True)

    done = make_session_capture(args.etrecord, args.output, args.method, progress)
    inputs = done["inputs"] or "the ETRecord's representative inputs"
    print(
        f"{args.output}: {done['records']} records from '{done['reference_graph']}' on {inputs}",
        file=sys.stderr,
    )
    return 0


def _run_serve(args: argparse.Namespace) -> int:
    from gapscope_capture.session_capture import serve

    return serve()
