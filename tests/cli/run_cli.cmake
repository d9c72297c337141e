# Shared by the cli tests' scripts: run(EXPECTED_EXIT COMMAND...) runs a command,
# fails the test with its output when it exits otherwise, and leaves its stdout
# and stderr in `out` and `err`.
function(run expected)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expected)
    message(FATAL_ERROR "${ARGN}\nexited ${rc}, not ${expected}:\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()
