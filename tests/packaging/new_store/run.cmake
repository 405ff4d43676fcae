# Runs packaging.new_store: the walls of the tree with the toy store (includes only), the toy
# store written by numpy, and the program that reads it through the store-neutral face.
#   cmake -DPYTHON=... -DSOURCE=<tests/packaging> -DTREE=... -DPROGRAM=... -DDATA=... -P run.cmake
foreach(step IN ITEMS walls data read)
  if(step STREQUAL "walls")
    set(cmd "${PYTHON}" "${SOURCE}/check_walls.py" --includes-only "${TREE}")
  elseif(step STREQUAL "data")
    set(cmd "${PYTHON}" "${SOURCE}/new_store/make_npy.py" "${DATA}")
  else()
    set(cmd "${PROGRAM}" "${DATA}")
  endif()
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "packaging.new_store: the ${step} step failed (exit ${rc})")
  endif()
endforeach()
