#!/usr/bin/env bash
# End-to-end test: installs the Python exporter with torch 2.13.0 and ExecuTorch
# from PyPI into a virtual environment inside the build tree, runs
# the test fixtures' demo and zoo (python -m gapscope_zoo: real export, lowering, runtime run with ETDump and
# debug buffer, AOT capture with gapscope-capture, ExecuTorch's own gap tables) and checks every
# produced file with the C++ core.
# usage: run_e2e.sh SOURCE_DIR WORK_DIR E2E_CHECK_BINARY GAPSCOPE_CLI
set -euo pipefail
src=$1
work=$2
check=$3
cli=$4

venv="$work/venv"
stamp="$venv/.gapscope-installed"
mkdir -p "$work"
# setuptools builds in the source folder; build from a copy so tests leave the
# checkout untouched.
rm -rf "$work/python-src"
cp -r "$src/python" "$work/python-src"
pkg="$work/python-src"
if [ ! -f "$stamp" ] || [ "$src/python/pyproject.toml" -nt "$stamp" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  # --upgrade: a new venv comes with an older setuptools than python/pyproject.toml
  # needs (>=77, for its SPDX licence), and a plain install would keep it.
  "$venv/bin/pip" install --quiet --disable-pip-version-check --upgrade build "setuptools>=77" wheel
fi
# Users install the exporter as a wheel: build it (python -m build, as
# packaging/test-wheel does) and install that, not the source folder.
rm -rf "$work/dist"
"$venv/bin/python" -m build --wheel --no-isolation --outdir "$work/dist" "$pkg" > "$work/wheel-build.log" 2>&1 ||
  { cat "$work/wheel-build.log"; exit 1; }
wheel=$(ls "$work"/dist/gapscope_capture-*-py3-none-any.whl)
if [ ! -f "$stamp" ]; then
  # A clean venv (on a fresh machine, as in CI): the wheel with its extras.
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${wheel}[executorch,test,arm]"
  touch "$stamp"
else
  # Dependencies are in place; pick up changes to the exporter's own code.
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --force-reinstall "$wheel"
fi
"$venv/bin/gapscope-capture" --help > /dev/null
"$venv/bin/python" -c 'import torch, executorch; print("e2e: torch", torch.__version__, "executorch", executorch.version.__version__)' 2>/dev/null || true

echo "e2e: Python exporter tests (in the background, beside the demo and the zoo)"
# The suite's other tests finish in the e2e's first minutes, which leaves a core idle:
# the exporter's tests run beside the sessions' generation, not before it (CI's time).
# They run from a copy of python/: the committed sessions are named by path.
(cd "$pkg" && GAPSCOPE_TEST_DATA_DIR="$src/tests/data" "$venv/bin/python" -m pytest -q -p no:cacheprovider \
  --basetemp "$work/pytest" tests) \
  > "$work/pytest.log" 2>&1 &
pytest_pid=$!
trap 'kill "$pytest_pid" 2> /dev/null || true' EXIT # a failure below leaves no test running

# The test fixtures (python/gapscope_zoo) are not in the wheel: run from the source copy.
echo "e2e: the demo (python -m gapscope_zoo demo)"
rm -rf "$work/demo"
time PYTHONPATH="$pkg" "$venv/bin/python" -m gapscope_zoo demo "$work/demo"

echo "e2e: the zoo (python -m gapscope_zoo zoo)"
rm -rf "$work/zoo"
time PYTHONPATH="$pkg" "$venv/bin/python" -m gapscope_zoo zoo "$work/zoo"

echo "e2e: the Python exporter tests' result"
pytest_status=0
wait "$pytest_pid" || pytest_status=$?
tail -n 30 "$work/pytest.log"
[ "$pytest_status" -eq 0 ] || { echo "e2e: the Python exporter tests failed (exit $pytest_status)"; exit 1; }

echo "e2e: a device's folder without a capture to its table in one command (compare --make-capture)"
# The demo's fp32 run without its capture: the exporter (the installed wheel's
# gapscope-capture for-session) makes it beside the ETRecord, and the table equals
# the one made from the demo's own capture (issue 60).
rm -rf "$work/make-capture" && mkdir "$work/make-capture"
for f in etrecord.bin run.etdp run.debug.bin; do cp "$work/demo/fp32/$f" "$work/make-capture/"; done
GAPSCOPE_CAPTURE="$venv/bin/gapscope-capture" "$cli" compare "$work/make-capture" --make-capture \
  --csv "$work/make-capture.csv" > "$work/make-capture.txt" 2> "$work/make-capture.err" ||
  { cat "$work/make-capture.err"; exit 1; }
test -f "$work/make-capture/capture.gscap.safetensors"
"$cli" compare "$work/demo/fp32" --csv "$work/demo-fp32.csv" > /dev/null
cmp "$work/make-capture.csv" "$work/demo-fp32.csv" ||
  { echo "e2e: --make-capture's table differs from the demo's"; diff "$work/make-capture.csv" "$work/demo-fp32.csv" | head; exit 1; }

echo "e2e: docs/your-model.md, its script and its CI gates as the page gives them"
rm -rf "$work/your-model"
(cd "$work" && "$venv/bin/python" "$src/docs/examples/your_model.py" your-model > your-model.txt)
grep -q "^gapscope-cli compare your-model --capture your-model/host-twin/host_outputs.gscap.safetensors" \
  "$work/your-model.txt"
(cd "$work" && "$cli" compare your-model/host-twin --capture your-model/host-twin/capture_float.gscap.safetensors \
  --fail-above snr=10 --json twin.json > /dev/null &&
  "$cli" compare your-model --capture your-model/host-twin/host_outputs.gscap.safetensors --fail-above snr=25 > /dev/null)
"$venv/bin/python" - "$work/twin.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert len(rows) >= 8 and all(r["status"] == "ok" for r in rows), [(r["aot_ops"][0], r["status"]) for r in rows]
print("e2e: the documented twin compares", len(rows), "ops, each with numbers")
PY

echo "e2e: C++ consistency checks"
GAPSCOPE_E2E_DIR="$work/demo" GAPSCOPE_E2E_ZOO_DIR="$work/zoo" "$check"

echo "e2e: gapscope-cli profile against ExecuTorch's Inspector (docs/profiling.md)"
# The timing table, event by event and run by run, equals Inspector.to_dataframe():
# a 17-run decode loop (float and int8), 6 runs on XNNPACK, one int8 XNNPACK run
# (delegate events named by the ETRecord) and the demo.
# XNNPACK's per-op profiling is on in ExecuTorch 1.5.1's wheel: its sessions must
# carry the delegate's own events, timed. The multi-run and decode loops give
# several durations per event.
for spec in decode-loop/portable:0:17 decode-loop/int8:0:17 multirun/fp32:40:6 vit/int8:80:1 demo/int8:1:1; do
  IFS=: read -r name timed runs <<< "$spec"
  session="$work/zoo/$name"
  [ "$name" = demo/int8 ] && session="$work/demo/int8"
  "$cli" profile "$session" --json "$work/profile.json" > /dev/null
  "$venv/bin/python" -W ignore "$src/tests/e2e/check_profile.py" --min-delegate-timed "$timed" --min-runs "$runs" \
    "$work/profile.json" "$session/run.etdp" "$session/etrecord.bin"
done
# Model Explorer overlays (docs/profiling.md): read back by Model Explorer's own
# classes, keyed on the nodes ExecuTorch's ETRecord adapter builds, values the report's.
for spec in mobilenetv3/portable:20 vit/int8:5 hf-llama/portable:100; do
  IFS=: read -r name nodes <<< "$spec"
  session="$work/zoo/$name"
  rm -rf "$work/model-explorer"
  "$cli" compare "$session" --json "$work/me-report.json" --model-explorer "$work/model-explorer" > /dev/null 2>&1 || true
  "$venv/bin/python" -W ignore "$src/tests/e2e/check_model_explorer.py" "$work/model-explorer" "$work/me-report.json" \
    "$session/etrecord.bin" --min-nodes "$nodes"
done

# Each row's time beside its gap (docs/profiling.md): against the Inspector's own
# events, operator calls summed per op, delegate calls, over the block's runs.
for spec in mobilenetv3/portable:20 mobilenetv3/int8:1 decode-loop/int8:12 hf-llama/portable:100 multirun/fp32:12 \
            vit/int8:20; do
  IFS=: read -r name rows <<< "$spec"
  session="$work/zoo/$name"
  "$cli" compare "$session" --json "$work/latency.json" > /dev/null 2>&1 || true
  "$venv/bin/python" -W ignore "$src/tests/e2e/check_latency.py" --min-timed "$rows" "$work/latency.json" \
    "$session/run.etdp" "$session/etrecord.bin"
done

echo "e2e: gapscope-cli compare --all-runs on the KV-cache decode loop"
# Every execution against its own step capture: 17 runs in one JSON report, no gate
# tripped (a float decode loop diverges at no step).
"$cli" compare "$work/zoo/decode-loop/portable" --all-runs --fail-above snr=20 --json "$work/all-runs.json" > /dev/null
"$venv/bin/python" - "$work/all-runs.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
runs = report["runs"]
assert len(runs) == 17, len(runs)
assert [r["execution"] for r in runs] == list(range(17))
assert all(r["first_divergence"] is None for r in runs)
assert all(r["warnings"] == [] for r in runs)
captures = [next(i["path"] for i in r["provenance"]["inputs"] if i["role"] == "capture") for r in runs]
assert all(c.endswith(f"step-{k:03d}.gscap.safetensors") for k, c in enumerate(captures)), captures
print("e2e: --all-runs compared", len(runs), "steps, each with its own capture")
PY

echo "e2e: the int8 decode loop, step by step against the float model's own steps"
# Every step against the float model's step capture (its cache carried as the
# device's): the int8 error at each step, where the float loop has none. The
# steps differ (the drift is not flat), a gate at 35 dB trips at the first step
# that crosses it, and the diff of the two loops pairs every step's rows by op
# (two programs) and finds the int8 side worse.
"$cli" compare "$work/zoo/decode-loop/int8" --all-runs --json "$work/all-runs-int8.json" > "$work/all-runs-int8.txt"
set +e
"$cli" compare "$work/zoo/decode-loop/int8" --all-runs --fail-above snr=35 > "$work/all-runs-int8-gate.txt" 2>&1
gate=$?
set -e
test "$gate" -eq 3 || { echo "e2e: the int8 loop's 35 dB gate exited $gate, not 3"; exit 1; }
"$cli" diff "$work/all-runs.json" "$work/all-runs-int8.json" --json "$work/steps-int8-diff.json" > /dev/null
"$venv/bin/python" - "$work/all-runs-int8.json" "$work/all-runs.json" "$work/all-runs-int8-gate.txt" \
  "$work/steps-int8-diff.json" <<'PY'
import json, math, sys
int8, fp, gate, diff = (json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), open(sys.argv[3]).read(),
                        json.load(open(sys.argv[4])))
def snrs(run):
    return [r["metrics"]["snr"] for r in run["rows"] if isinstance(r["metrics"].get("snr"), (int, float))]
runs = int8["runs"]
assert len(runs) == 17, len(runs)
captures = [next(i["path"] for i in r["provenance"]["inputs"] if i["role"] == "capture") for r in runs]
assert all(c.endswith(f"step-{k:03d}.gscap.safetensors") for k, c in enumerate(captures)), captures
worst = [min(v for v in snrs(r) if math.isfinite(v)) for r in runs]
best_fp = min(min(v for v in snrs(r) if math.isfinite(v)) for r in fp["runs"])
# int8 against float: 20-60 dB at every step, where the float loop is exact to 100 dB and more.
assert all(20 < w < 60 for w in worst), worst
assert best_fp > 100 and best_fp - max(worst) > 40, (best_fp, worst)
# The drift is not flat over the steps: the steps view has something to show.
assert max(worst) - min(worst) > 5, worst
first = next(k for k, w in enumerate(worst) if w < 35)
assert f"first crossing at execution {first} " in gate, gate
steps = diff["executions"]
assert len(steps) == 17, len(steps)
for s in steps:
    # Two programs (the int8 one has quantize/dequantize nodes): paired by what each row compares, none dropped.
    assert s["matched_by"] == "node_identity", s["matched_by"]
    assert s["counts"]["a_only"] == s["counts"]["b_only"] == 0 and s["counts"]["matched"] >= 10, s["counts"]
    # int8 is worse than float on every op with a finite number on both sides.
    finite = [p["metrics"]["snr"] for p in s["pairs"]
              if all(isinstance(p["metrics"]["snr"][k], (int, float)) and math.isfinite(p["metrics"]["snr"][k])
                     for k in ("a", "b"))]
    assert len(finite) >= 5 and all(m["worse_by"] > 40 for m in finite), finite
print("e2e: the int8 decode loop: worst SNR per step", [round(w, 1) for w in worst], "first below 35 dB at", first)
PY

echo "e2e: the torchao 8da4w decode loop on XNNPACK, step by step against the float model"
# ExecuTorch's LLM quantisation as it decodes (issue 54): every step's every row is
# compared with the float model's own step (its cache carried), none invalid, and
# the int4 weights cost 10 to 40 dB at each step.
"$cli" compare "$work/zoo/decode-loop/8da4w" --all-runs --json "$work/all-runs-8da4w.json" > /dev/null
"$venv/bin/python" - "$work/all-runs-8da4w.json" <<'PY'
import json, math, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert len(runs) == 5, len(runs)
captures = [next(i["path"] for i in r["provenance"]["inputs"] if i["role"] == "capture") for r in runs]
assert all(c.endswith(f"step-{k:03d}.gscap.safetensors") for k, c in enumerate(captures)), captures
for run in runs:
    bad = [(r["aot_ops"][-1], r["status"], r["reason"]) for r in run["rows"] if r["status"] != "ok"]
    assert len(run["rows"]) >= 8 and not bad, bad
worst = [min(r["metrics"]["snr"] for r in run["rows"]
             if isinstance(r["metrics"].get("snr"), (int, float)) and math.isfinite(r["metrics"]["snr"]))
         for run in runs]
assert all(10 < w < 40 for w in worst), worst
print("e2e: the 8da4w decode loop: worst SNR per step", [round(w, 1) for w in worst])
PY

echo "e2e: comparing runs (docs/compare-runs.md): one model on two backends, a build against its baseline"
# ViT and the conv+BN MobileNet block on portable kernels against XNNPACK int8: every
# row of both accounted for, each side's numbers exactly its own report's.
for model in vit mobilenetv3 decoder; do
  for variant in portable int8; do
    "$cli" compare "$work/zoo/$model/$variant" --json "$work/diff-$model-$variant.json" > /dev/null 2>&1
  done
  "$cli" diff "$work/diff-$model-portable.json" "$work/diff-$model-int8.json" --json "$work/diff-$model.json" \
    > "$work/diff-$model.txt"
  "$venv/bin/python" "$src/tests/e2e/check_diff.py" "$work/diff-$model.json" "$work/diff-$model-portable.json" \
    "$work/diff-$model-int8.json"
done
# A run against its own report passes any margin; decode steps compare step by step.
"$cli" compare "$work/zoo/vit/fp32" --json "$work/vit-fp32.json" > /dev/null 2>&1
# Issue 56, on real sessions: XNNPACK fp32 against portable kernels differ at rounding
# level (130 against 136 dB): no margin judges them, though B is 4-6 dB "worse".
"$cli" diff "$work/vit-fp32.json" "$work/diff-vit-portable.json" --fail-if-worse snr=3 \
  --json "$work/diff-vit-rounding.json" > /dev/null
"$venv/bin/python" "$src/tests/e2e/check_diff.py" "$work/diff-vit-rounding.json" "$work/vit-fp32.json" \
  "$work/diff-vit-portable.json" --by-handle
"$venv/bin/python" - "$work/diff-vit-rounding.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
level = lambda v: float(v) if not isinstance(v, str) else float(v.replace("Infinity", "inf"))
noise = [p for p in d["pairs"] if p["a"] and p["b"] and p["metrics"]["snr"]["a"] is not None
         and p["metrics"]["snr"]["b"] is not None and min(level(p["metrics"]["snr"]["a"]), level(p["metrics"]["snr"]["b"])) >= 100
         and level(p["metrics"]["snr"]["a"]) - level(p["metrics"]["snr"]["b"]) > 3]
assert noise, "no pair 3 dB apart at rounding level: the test would pass without the floor"
print("e2e: fp32 against portable,", len(noise), "pairs more than 3 dB apart above 100 dB: no margin trips")
PY
# Two lowerings measured against different references (the exported graph, the
# quantised simulation): said, and no margin is judged.
status=0
"$cli" diff "$work/diff-vit-portable.json" "$work/diff-vit-int8.json" --fail-if-worse snr=3 > /dev/null \
  2> "$work/diff-vit-references.err" || status=$?
if [ "$status" -ne 1 ] || ! grep -q "measured against different references" "$work/diff-vit-references.err" ||
  ! grep -q "A is measured against: exported graph; B against: quantised simulation (PT2E)" \
    "$work/diff-vit-references.err"; then
  echo "e2e: portable against int8 with a margin exited $status, not 1 with the references named:"
  cat "$work/diff-vit-references.err"
  exit 1
fi
"$cli" compare "$work/zoo/vit/fp32" --baseline "$work/vit-fp32.json" --fail-if-worse snr=0 > /dev/null 2>&1
"$cli" compare "$work/zoo/decode-loop/portable" --all-runs --baseline "$work/all-runs.json" \
  --fail-if-worse snr=0 > /dev/null 2>&1
"$cli" diff "$work/all-runs.json" "$work/all-runs.json" --json "$work/steps-diff.json" > /dev/null
"$venv/bin/python" - "$work/steps-diff.json" <<'PY'
import json, sys
steps = json.load(open(sys.argv[1]))["executions"]
assert len(steps) == 17, len(steps)
assert all(s["matched_by"] == "debug_handle" and s["counts"]["a_only"] == s["counts"]["b_only"] == 0 for s in steps)
print("e2e: diff of two --all-runs reports compared", len(steps), "steps, each by handle")
PY
