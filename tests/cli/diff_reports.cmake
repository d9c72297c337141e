# `gapscope-cli diff` and `compare --baseline` on the demo's report (docs/compare-runs.md):
# a run against itself passes any margin; a baseline doctored 10 dB better trips
# --fail-if-worse and names the op; a report of a newer schema is refused.
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
include(${CMAKE_CURRENT_LIST_DIR}/run_cli.cmake)

# The report `doc` with row 2's SNR 10 dB better (whole dB), written to `path`.
function(better_by_10db doc path)
  string(JSON snr GET "${doc}" rows 2 metrics snr)
  string(REGEX MATCH "^[0-9]+" whole "${snr}")
  math(EXPR better "${whole} + 10")
  string(JSON better_doc SET "${doc}" rows 2 metrics snr "${better}")
  file(WRITE "${path}" "${better_doc}")
endfunction()

run(0 "${CLI}" compare "${DEMO}" --json "${OUT}/base.json")
file(READ "${OUT}/base.json" base)
string(JSON version GET "${base}" schema_version)
if(NOT version EQUAL 3)
  message(FATAL_ERROR "schema_version ${version}")
endif()

run(0 "${CLI}" diff "${OUT}/base.json" "${OUT}/base.json" --fail-if-worse snr=0 --json "${OUT}/self.json")
file(READ "${OUT}/self.json" self)
string(JSON by GET "${self}" matched_by)
string(JSON matched GET "${self}" counts matched)
string(JSON rows LENGTH "${base}" rows)
if(NOT by STREQUAL "debug_handle" OR NOT matched EQUAL rows)
  message(FATAL_ERROR "a report against itself: ${by}, ${matched} of ${rows} rows paired")
endif()
run(0 "${CLI}" compare "${DEMO}" --baseline "${OUT}/base.json" --fail-if-worse snr=0 --fail-if-worse mse=0)
# A margin takes one value: the reports or the session after it stay what they are.
run(0 "${CLI}" diff --fail-if-worse snr=0 "${OUT}/base.json" "${OUT}/base.json")
run(0 "${CLI}" compare --baseline "${OUT}/base.json" --fail-if-worse snr=0 "${DEMO}")

# Issue 56, the noise floor: the demo's rows are at rounding level (141 dB), where
# a baseline 10 dB better is noise, not a regression: no margin judges it.
better_by_10db("${base}" "${OUT}/better.json")
run(0 "${CLI}" compare "${DEMO}" --baseline "${OUT}/better.json" --fail-if-worse snr=3)
run(0 "${CLI}" diff "${OUT}/better.json" "${OUT}/base.json" --fail-if-worse snr=3)

# Below the floor, the QNN demo (36-41 dB): row 2 (its second conv) 10 dB better in
# the baseline, so this run is 10 dB worse there.
run(0 "${CLI}" compare "${QNN_DEMO}" --json "${OUT}/qnn.json")
file(READ "${OUT}/qnn.json" qnn)
better_by_10db("${qnn}" "${OUT}/qnn-better.json")
run(3 "${CLI}" compare "${QNN_DEMO}" --baseline "${OUT}/qnn-better.json" --fail-if-worse snr=3)
if(NOT err MATCHES "worse than the baseline: row 2 \\(aten_convolution_default_1\\) → row 2 \\(aten_convolution_default_1\\): SNR")
  message(FATAL_ERROR "the tripping op is not named:\n${err}")
endif()
run(0 "${CLI}" compare "${QNN_DEMO}" --baseline "${OUT}/qnn-better.json" --fail-if-worse snr=11)
run(3 "${CLI}" diff "${OUT}/qnn-better.json" "${OUT}/qnn.json" --fail-if-worse snr=3 --csv "${OUT}/d.csv"
    --markdown "${OUT}/d.md")
file(STRINGS "${OUT}/d.csv" csv)
list(GET csv 1 worst)
if(NOT worst MATCHES "^[0-9]+,2,aten_convolution_default_1,2,aten_convolution_default_1,debug_handle,")
  message(FATAL_ERROR "the CSV's first pair is not the worse one: ${worst}")
endif()

string(JSON newer SET "${base}" schema_version 4)
file(WRITE "${OUT}/newer.json" "${newer}")
run(1 "${CLI}" diff "${OUT}/newer.json" "${OUT}/base.json")
if(NOT err MATCHES "newer.json: report schema version 4 was written by a newer Gapscope")
  message(FATAL_ERROR "a newer report is not refused as such:\n${err}")
endif()
run(1 "${CLI}" diff "${OUT}/self.json" "${OUT}/base.json")
if(NOT err MATCHES "not a report")
  message(FATAL_ERROR "a diff given as a report is not refused as such:\n${err}")
endif()
run(2 "${CLI}" compare "${DEMO}" --fail-if-worse snr=3)
run(2 "${CLI}" diff "${OUT}/base.json" "${OUT}/base.json" --fail-if-worse snr=-1)

# Issue 55, class 1: a report given to read is an input, never replaced by an
# output: every writer of diff and compare refuses it, before any work, and the
# file keeps its bytes. A hard link to a report is the report.
file(SHA256 "${OUT}/base.json" base_hash)
file(SHA256 "${OUT}/better.json" better_hash)
file(CREATE_LINK "${OUT}/base.json" "${OUT}/base-link.json")
foreach(args
    "diff;${OUT}/base.json;${OUT}/better.json;--json;${OUT}/base.json"
    "diff;${OUT}/base.json;${OUT}/better.json;--csv;${OUT}/better.json"
    "diff;${OUT}/base.json;${OUT}/better.json;--markdown;${OUT}/base.json"
    "diff;${OUT}/base.json;${OUT}/better.json;--json;${OUT}/base-link.json"
    "compare;${DEMO};--baseline;${OUT}/base.json;--json;${OUT}/base.json"
    "compare;${DEMO};--baseline;${OUT}/better.json;--fail-if-worse;snr=3;--csv;${OUT}/better.json"
    "compare;${DEMO};--all-runs;--baseline;${OUT}/base.json;--json;${OUT}/base.json")
  run(1 "${CLI}" ${args})
  if(NOT err MATCHES "json: is one of the inputs: refusing to overwrite it; choose another name")
    message(FATAL_ERROR "an output over an input report is not refused (${args}):\n${err}")
  endif()
  file(SHA256 "${OUT}/base.json" now_base)
  file(SHA256 "${OUT}/better.json" now_better)
  if(NOT now_base STREQUAL base_hash OR NOT now_better STREQUAL better_hash)
    message(FATAL_ERROR "an input report was replaced by: ${args}")
  endif()
endforeach()

# Issue 55, class 9: a report of no run says so (it said "gapscope-cli diff: " and
# nothing), and a folder given to an option that names one file is refused as
# --etdump's is, not searched.
file(WRITE "${OUT}/no-runs.json" "{\"schema_version\": 3, \"runs\": []}")
run(2 "${CLI}" diff "${OUT}/no-runs.json" "${OUT}/base.json")
if(NOT err MATCHES "A holds no run \\('runs' is empty\\): there is nothing to compare")
  message(FATAL_ERROR "a report of no run is not said:\n${err}")
endif()
foreach(option --debug-buffer --etrecord --capture)
  run(1 "${CLI}" compare "${DEMO}" ${option} "${DEMO}")
  if(NOT err MATCHES "${option}: .*: is a directory, not a file")
    message(FATAL_ERROR "${option} DIR is not refused:\n${err}")
  endif()
endforeach()

# Issue 55, class 3: a baseline of another program (the decode loop's, against
# the demo) is said to be one, and no gate is judged on its pairs, which paired
# the demo's softmax with the loop's by op and order and tripped by "Infinity".
run(0 "${CLI}" compare "${DATA}/decode_loop_portable" --json "${OUT}/loop.json")
run(1 "${CLI}" compare "${DEMO}" --baseline "${OUT}/loop.json" --fail-if-worse snr=3)
if(NOT err MATCHES "--baseline: .*seem to be runs of different programs: A's ops come from zoo_runs.py, B's from demo.py")
  message(FATAL_ERROR "a baseline of another program is not said:\n${err}")
endif()
run(1 "${CLI}" diff "${OUT}/loop.json" "${OUT}/base.json" --fail-if-worse snr=3)
if(NOT err MATCHES "--fail-if-worse is not judged: A and B are not runs of one program")
  message(FATAL_ERROR "diff judges a gate across programs:\n${err}")
endif()

# Issue 55, class 8 (its stderr part): --all-runs says each kind of warning once,
# then how many more runs said it, instead of a line per run (10 MB at 20,000).
file(MAKE_DIRECTORY "${OUT}/loop-one-step")
foreach(f run.etdp run.debug.bin etrecord.bin capture.forward.step-000.gscap.safetensors)
  file(COPY_FILE "${DATA}/decode_loop_portable/${f}" "${OUT}/loop-one-step/${f}")
endforeach()
run(0 "${CLI}" compare "${OUT}/loop-one-step" --all-runs --json "${OUT}/loop-one-step.json")
string(REGEX MATCHALL "warning: the capture is of step 0" said "${err}")
list(LENGTH said n)
if(NOT n EQUAL 1 OR NOT err MATCHES "was said in [1-9][0-9]* more runs too")
  message(FATAL_ERROR "--all-runs repeats its warnings (${n} times):\n${err}")
endif()
file(READ "${OUT}/loop-one-step.json" report)
string(JSON runs LENGTH "${report}" runs)
math(EXPR final "${runs} - 1")
string(JSON last GET "${report}" runs ${final} warnings 0)
if(NOT last MATCHES "^the capture is of step 0")
  message(FATAL_ERROR "the JSON report lost a run's warning: ${last}")
endif()
