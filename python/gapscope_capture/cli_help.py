"""The exporter's commands' long help texts (``gapscope-capture COMMAND --help``), apart from ``cli``'s wiring."""

FROM_ETRECORD_HELP = """\
Capture the reference intermediate outputs of an ETRecord into an AOT capture
file (docs/formats/aot-capture.md), choosing the reference graph like
ExecuTorch's Inspector.calculate_numeric_gap does.

--inputs FILE is a safetensors file holding the model's positional input
tensors named inputs/0, inputs/1, ... (a capture file also works: its inputs/<i>
tensors are used). Without it, the ETRecord's representative inputs are used.
Repeated (--inputs STEP0 --inputs STEP1 ...), one per execution in order, the
executions are captured in sequence, the program's mutable buffers (an LLM's KV
cache) carried from each to the next as on the device, and -o names a folder that
receives capture.<method>.step-NNN.gscap.safetensors for each step; put them beside
the ETDump and `gapscope-cli compare DIR --all-runs` compares every run with its own
step.

--reference-graph NAME is one of exported_program, edge_dialect_exported_program
or a graph_map key of the ETRecord (e.g. edge_after_transform/forward; "/forward"
is added to a name without "/"). Default: exported_program when debug handles
can be propagated back to it, else edge_dialect_exported_program.
"""


TAPS_HELP = """\
Write the reference of a program tapped with ExecuTorch's intermediate-output
tap (executorch.devtools.intermediate_output_tap; docs/your-model.md, "Inside a
delegate, on the device"): the capture of its ETRecord, each tap tied to its op
and to the reference value of its program output, reduced like on the device.

--specs FILE: the TapSpecs as JSON (gapscope_capture.taps.save_tap_specs, or
dataclasses.asdict of ExecuTorch's own).

--float-program FILE.pt2: the float program tapped before quantisation, saved
with torch.export.save; also writes OUTPUT's _float twin, the float model's
values of the same taps (the gap each op inside a delegate adds to the float
model).
"""


FIX_HELP = """\
Find what to keep in higher precision so that a quantised model meets its
accuracy target, and verify it (docs/your-model.md, "What to change"): the
recipe as it is (the baseline), then each candidate module kept in float on
its own, then a greedy search over the best of them. Every configuration is
quantised, lowered and run on this machine through ExecuTorch's runtime, and
its program outputs compared with the float model's: no number is an estimate.

FLOAT_PROGRAM: the model exported before quantisation (torch.export.save).
--target snr=DB or top1=SHARE: the output's SNR (the worst output), or the
share of rows whose arg-max agrees with the float model's.
--recipe: xnnpack-int8 (XNNPACKQuantizer, symmetric, per tensor; the
default), xnnpack-int8-per-channel, or qnn-8a8w (QnnQuantizer at 8a8w, the
parts tried kept at 16a8w, run on the HTP simulator: with the QNN SDK set up,
shared/qnn-x86).
--inputs FILE: the inputs compared on (default: the program's example inputs);
--calibration FILE, repeated: the calibration batches (default: the inputs).
--report JSON: a gapscope-cli compare --json report of the model: the ops it
flags (first divergence, strongest gains, top of Added) are tried first. A
delegate that logs only its outputs (XNNPACK) flags whole groups: give the
host twin's report (gapscope-capture twin), which names ops.
--budget SECONDS stops the search with the best found.

Writes into OUTPUT: fix.json, fix.md (the ranked table), snippet.py (the
quantiser's configuration that reached the best result) and fixed/, the
verified run as a Gapscope session (open it as B beside the original).
Exit status: 0 when the target is met, 3 when not (the best found is written).
"""


STAGES_HELP = """\
Write every reference of the stage ladder that can be made from an ETRecord
(docs/your-model.md, "Which stage loses the accuracy"): the float model (given
--float-program), the ETRecord's ATen graph, its edge graph, the graph after
QNN's passes (for a QNN program), and the program run on this machine's kernels
without delegates (for a program with delegates; --no-host leaves it out).

OUTDIR is the session's stages/ folder: `gapscope-cli compare SESSION --ladder`
and the app's Stages tab read every capture there with the session's own, and
show per op the SNR each step adds (quantisation, lowering, the kernels) and
the step that loses the most. A reference that cannot be made is skipped with
the reason.

--inputs FILE: the inputs the device ran on (safetensors, inputs/0, ...);
default: the ETRecord's representative inputs.
"""


TWIN_HELP = """\
Lower the ETRecord's program again without delegates, on ExecuTorch's portable
and quantised kernels, run it on this machine with ETDump and a debug buffer,
and capture it (docs/your-model.md). A delegate such as XNNPACK logs only its
outputs, so a whole int8 network is one row; the twin has one row per op, with
the debug handles of the delegated program.

Writes into OUTDIR: etrecord.bin, model.pte, run.etdp, run.debug.bin,
capture.gscap.safetensors (the twin's own reference) and
host_outputs.gscap.safetensors (the twin's runtime outputs by debug handle).
`gapscope OUTDIR` shows the twin's kernels against its own reference (PT2E's
simulation; they should agree); `gapscope OUTDIR --capture
OUTDIR/capture_float.gscap.safetensors` shows where quantisation loses accuracy,
op by op; `gapscope-cli compare DEVICE_DIR --capture
OUTDIR/host_outputs.gscap.safetensors` shows how far each of the device's
delegates is from the host.

--float-program FILE.pt2: the float model exported before quantisation and saved
with torch.export.save; the twin then also gets capture_float.gscap.safetensors,
the float reference, against which its rows show where quantisation loses
accuracy, op by op.

--inputs FILE: the inputs the device ran on (safetensors, inputs/0, inputs/1,
...); default: the ETRecord's representative inputs.
"""
