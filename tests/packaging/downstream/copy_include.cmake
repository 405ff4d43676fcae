# Copies include/ alone to a fresh folder and builds the consumer with the plain compiler line
# `c++ -std=c++20 -I include -pthread`, then runs it. With ZARR=ON, the Zarr consumer too (it needs
# nlohmann_json, xtensor and zlib from the system), header-only and then compiled: the component's
# one source line `#include <chunkwise/zarr/src.hpp>` compiled apart, the program with
# -DCHUNKWISE_SEPARATE_COMPILATION, linked together.
# Variables: SOURCE_DIR (chunkwise's tree), WORK_DIR (scratch), CXX (the compiler), ZARR (ON/OFF).
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
file(COPY "${SOURCE_DIR}/include" DESTINATION "${WORK_DIR}")
file(COPY "${SOURCE_DIR}/tests/packaging/downstream/consumer.cpp" DESTINATION "${WORK_DIR}")
function(run what)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed")
  endif()
endfunction()
run("compiling with include/ copied alone" "${CXX}" -std=c++20 -I include -pthread consumer.cpp -o consumer)
run("the consumer built from include/ alone" "${WORK_DIR}/consumer")
if(ZARR)
  file(COPY "${SOURCE_DIR}/tests/packaging/downstream/consumer_zarr.cpp" DESTINATION "${WORK_DIR}")
  run("compiling the Zarr consumer header-only"
      "${CXX}" -std=c++20 -I include -pthread consumer_zarr.cpp -o consumer_zarr -lz)
  run("the Zarr consumer, header-only" "${WORK_DIR}/consumer_zarr" "${WORK_DIR}/a.zarr")
  file(WRITE "${WORK_DIR}/chunkwise_zarr.cpp" "#include <chunkwise/zarr/src.hpp>\n")
  run("compiling chunkwise_zarr.cpp" "${CXX}" -std=c++20 -I include -c chunkwise_zarr.cpp -o chunkwise_zarr.o)
  run("compiling the Zarr consumer in compiled mode"
      "${CXX}" -std=c++20 -DCHUNKWISE_SEPARATE_COMPILATION -I include -pthread consumer_zarr.cpp chunkwise_zarr.o
      -o consumer_zarr_compiled -lz)
  run("the Zarr consumer, compiled" "${WORK_DIR}/consumer_zarr_compiled" "${WORK_DIR}/b.zarr")
endif()
