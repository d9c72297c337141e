#!/usr/bin/env bash
# End-to-end test on real QNN: sets up ExecuTorch 1.5.1's Qualcomm backend against
# the QNN HTP simulator from PyPI (shared/qnn-x86, cached in the build tree),
# installs the exporter into that venv, builds real QNN-delegated sessions
# (8a8w, 16a8w, fp16; a conv net, an attention block, multi-output ops, a Llama
# decoder layer at 16a8w), and checks `gapscope-cli compare` on each against
# ExecuTorch's QNN debugger.
# usage: run_e2e_qnn.sh SOURCE_DIR SHARED_DIR WORK_DIR GAPSCOPE_CLI
set -euo pipefail
src=$1
shared=$2
work=$3
cli=$4
here="$src/tests/e2e_qnn"

mkdir -p "$work"
started=$SECONDS
"$shared/qnn-x86/setup.sh" "$work/kit"
# shellcheck disable=SC1091
source "$work/kit/env.sh"
py="$work/kit/venv/bin/python"
# Build the exporter from a copy, so the checkout stays untouched.
rm -rf "$work/python-src"
cp -r "$src/python" "$work/python-src"
"$work/kit/venv/bin/pip" install --quiet --disable-pip-version-check safetensors pytest
"$work/kit/venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --force-reinstall "$work/python-src"
echo "e2e-qnn: kit and exporter ready in $((SECONDS - started)) s"

echo "e2e-qnn: exporter tests for the QNN capture"
(cd "$work/python-src" && "$py" -m pytest -q --disable-warnings -p no:cacheprovider --basetemp "$work/pytest" tests/test_qnn_capture.py)

failures=0
mkdir -p "$work/sessions"
# The Llama layer's characteristic ops must each have an ok row: both RMSNorms,
# RoPE's two cats, repeat_kv's expand, the softmax and SwiGLU's sigmoid.
llama_ops=aten_rms_norm_default,aten_rms_norm_default_1,aten_cat_default,aten_cat_default_1
llama_ops=$llama_ops,aten_expand_copy_default,aten__softmax_default,aten_sigmoid_default
for session in convnet:8a8w attention:8a8w attention:16a8w convnet:fp16 multiout:8a8w llama:16a8w; do
  model=${session%%:*}
  quant=${session##*:}
  required=()
  if [ "$model" = llama ]; then required=(--require-ops "$llama_ops"); fi
  out="$work/sessions/$model-$quant"
  rm -rf "$out"
  t=$SECONDS
  if ! "$py" "$here/make_qnn_session.py" "$out" "$model" "$quant" > "$out.log" 2>&1; then
    echo "e2e-qnn: $model $quant: building the session failed; last lines of $out.log:"
    tail -20 "$out.log"
    failures=$((failures + 1))
    continue
  fi
  "$cli" compare --etdump "$out/run.etdp" --debug-buffer "$out/run.debug.bin" --etrecord "$out/etrecord.bin" \
    --capture "$out/capture.gscap.safetensors" --json "$out/gapscope.json" > "$out/gapscope.txt"
  echo "e2e-qnn: $model $quant ($((SECONDS - t)) s)"
  if ! "$py" "$here/check_parity.py" "${required[@]}" "$out" "$out/gapscope.json"; then
    failures=$((failures + 1))
  fi
done

# The ETRecord alone (no debugger) cannot give QNN's quantisation: every quantised
# row must be refused, none may carry a number.
out="$work/sessions/convnet-8a8w"
"$work/kit/venv/bin/gapscope-capture" from-etrecord "$out/etrecord.bin" -o "$out/from-etrecord.gscap.safetensors"
"$cli" compare --etdump "$out/run.etdp" --debug-buffer "$out/run.debug.bin" --etrecord "$out/etrecord.bin" \
  --capture "$out/from-etrecord.gscap.safetensors" --json "$out/from-etrecord.json" > /dev/null
if ! "$py" "$here/check_parity.py" --expect-refused "$out" "$out/from-etrecord.json"; then
  failures=$((failures + 1))
fi

echo "e2e-qnn: $((SECONDS - started)) s in all"
if [ "$failures" -ne 0 ]; then
  echo "e2e-qnn: $failures check(s) failed"
  exit 1
fi
