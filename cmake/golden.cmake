# Run kvplan with the arguments in CASE.args (one per line; @SRC@ = source dir)
# and compare stdout with CASE.expected (the source dir written @SRC@) and the exit
# status with CASE.status (default 0).
# CASE.stderr (optional; required when the status is not 0) is the exact stderr, with
# @SRC@ for the source dir: an error golden must fail for the right reason, not for a
# misspelt option that happens to exit with the same status.
file(STRINGS ${CASE}.args raw_args)
set(args)
foreach(a ${raw_args})
  string(REPLACE "@SRC@" "${SOURCE_DIR}" a "${a}")
  list(APPEND args "${a}")
endforeach()
execute_process(COMMAND ${KVPLAN} ${args} OUTPUT_VARIABLE out ERROR_VARIABLE errout
                RESULT_VARIABLE rc WORKING_DIRECTORY ${SOURCE_DIR})
set(want_rc 0)
if(EXISTS ${CASE}.status)
  file(READ ${CASE}.status want_rc)
  string(STRIP "${want_rc}" want_rc)
endif()
if(NOT "${rc}" STREQUAL "${want_rc}")
  message(FATAL_ERROR "exit status ${rc}, expected ${want_rc}\nstdout:\n${out}\nstderr:\n${errout}")
endif()
file(READ ${CASE}.expected want)
# A path under the source dir is printed as @SRC@ in CASE.expected, so a golden
# passes in every checkout, not only in the one it was recorded in.
string(REPLACE "${SOURCE_DIR}" "@SRC@" out "${out}")
if(NOT "${out}" STREQUAL "${want}")
  file(WRITE ${CASE}.actual "${out}")
  message(FATAL_ERROR "output differs from ${CASE}.expected (actual written to ${CASE}.actual)\n${out}")
endif()

set(stderr_file ${CASE}.stderr)
if(NOT "${want_rc}" STREQUAL "0" AND NOT EXISTS ${stderr_file})
  message(FATAL_ERROR "exit status ${want_rc} needs ${stderr_file} (the exact stderr)")
endif()
if(EXISTS ${stderr_file})
  file(READ ${stderr_file} want_err)
  string(REPLACE "${SOURCE_DIR}" "@SRC@" got_err "${errout}")
  if(NOT "${got_err}" STREQUAL "${want_err}")
    file(WRITE ${CASE}.stderr.actual "${got_err}")
    message(FATAL_ERROR "stderr differs from ${stderr_file} (actual written to ${CASE}.stderr.actual)\nexpected:\n${want_err}\nactual:\n${got_err}")
  endif()
endif()
