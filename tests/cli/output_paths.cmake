# Where compare's reports go (issue 28): two options naming one file are
# refused before anything is written, "-" is standard output (the table then
# stays off it), and a report written again keeps its mode.
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
set(ARGS compare --etdump "${DEMO}/run.etdp" --debug-buffer "${DEMO}/run.debug.bin"
         --etrecord "${DEMO}/etrecord.bin" --capture "${DEMO}/capture.gscap.safetensors")

execute_process(COMMAND "${CLI}" ${ARGS} --csv "${OUT}/same" --json "${OUT}/./same"
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 2 OR NOT err MATCHES "--csv and --json name the same file" OR EXISTS "${OUT}/same")
  message(FATAL_ERROR "one path twice: exit ${rc}, ${err}")
endif()
file(WRITE "${OUT}/existing.csv" "old")
file(CREATE_LINK "${OUT}/existing.csv" "${OUT}/hardlink.json")
execute_process(COMMAND "${CLI}" ${ARGS} --csv "${OUT}/existing.csv" --json "${OUT}/hardlink.json"
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 2 OR NOT err MATCHES "name the same file")
  message(FATAL_ERROR "a hard link to the other output: exit ${rc}, ${err}")
endif()
execute_process(COMMAND "${CLI}" ${ARGS} --csv - --markdown -
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 2 OR NOT err MATCHES "both write to standard output")
  message(FATAL_ERROR "two reports on stdout: exit ${rc}, ${err}")
endif()
execute_process(COMMAND "${CLI}" ${ARGS} --model-explorer -
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 2 OR NOT err MATCHES "--model-explorer writes a folder")
  message(FATAL_ERROR "a folder on stdout: exit ${rc}, ${err}")
endif()

# The CSV on standard output, alone: no file named "-", no table mixed in.
execute_process(COMMAND "${CLI}" ${ARGS} --csv - WORKING_DIRECTORY "${OUT}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE csv ERROR_QUIET)
if(NOT rc EQUAL 0 OR NOT csv MATCHES "^index,aot_debug_handle," OR EXISTS "${OUT}/-")
  message(FATAL_ERROR "--csv -: exit ${rc}:\n${csv}")
endif()
string(REGEX MATCHALL "\n" lines "${csv}")
list(LENGTH lines n)
if(NOT n EQUAL 5)
  message(FATAL_ERROR "--csv -: expected a header and 4 rows, got ${n} lines:\n${csv}")
endif()

# A private report stays private when written again.
execute_process(COMMAND "${CLI}" ${ARGS} --json "${OUT}/private.json" RESULT_VARIABLE rc OUTPUT_QUIET)
file(CHMOD "${OUT}/private.json" PERMISSIONS OWNER_READ OWNER_WRITE)
execute_process(COMMAND "${CLI}" ${ARGS} --json "${OUT}/private.json" RESULT_VARIABLE rc OUTPUT_QUIET)
execute_process(COMMAND stat -c %a "${OUT}/private.json" OUTPUT_VARIABLE mode OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT mode STREQUAL "600")
  message(FATAL_ERROR "rewritten report: exit ${rc}, mode ${mode} (want 600)")
endif()
execute_process(COMMAND "${CLI}" ${ARGS} --json "${OUT}/fresh.json" RESULT_VARIABLE rc OUTPUT_QUIET)
execute_process(COMMAND stat -c %a "${OUT}/fresh.json" OUTPUT_VARIABLE mode OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT mode STREQUAL "644")
  message(FATAL_ERROR "a new report: mode ${mode} (want 644)")
endif()

# Issue 55, class 1: an input of the session, found in a folder, is refused as an
# output up front by compare and by profile (whose ETDump reader reads bytes, so
# only this check protects it), and keeps its bytes.
file(COPY "${DEMO}/" DESTINATION "${OUT}/session")
file(SHA256 "${OUT}/session/run.etdp" etdump_hash)
foreach(args "compare;${OUT}/session;--json;${OUT}/session/run.etdp"
             "profile;${OUT}/session;--json;${OUT}/session/run.etdp"
             "profile;${OUT}/session;--trace;${OUT}/session/etrecord.bin")
  execute_process(COMMAND "${CLI}" ${args} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  file(SHA256 "${OUT}/session/run.etdp" now)
  if(NOT rc EQUAL 1 OR NOT err MATCHES ": is one of the inputs: refusing to overwrite it" OR
     NOT now STREQUAL etdump_hash)
    message(FATAL_ERROR "an output over a session input (${args}): exit ${rc}, ${err}")
  endif()
endforeach()
