# Runs PROGRAM (through LAUNCHER RANKS PROGRAM when LAUNCHER is set: an MPI program) and fails
# unless its standard output equals the file EXPECTED.
if(LAUNCHER)
  execute_process(COMMAND "${LAUNCHER}" "${RANKS}" "${PROGRAM}" RESULT_VARIABLE rc OUTPUT_VARIABLE out)
else()
  execute_process(COMMAND "${PROGRAM}" RESULT_VARIABLE rc OUTPUT_VARIABLE out)
endif()
file(READ "${EXPECTED}" expected)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with ${rc}")
endif()
if(NOT out STREQUAL expected)
  message(FATAL_ERROR "${PROGRAM} printed\n${out}\nbut ${EXPECTED} says\n${expected}")
endif()
