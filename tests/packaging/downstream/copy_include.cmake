# Copies include/ alone to a fresh folder and builds the consumer with the plain compiler line
# `c++ -std=c++20 -I include -pthread`, then runs it.
# Variables: SOURCE_DIR (chunkwise's tree), WORK_DIR (scratch), CXX (the compiler).
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
file(COPY "${SOURCE_DIR}/include" DESTINATION "${WORK_DIR}")
file(COPY "${SOURCE_DIR}/tests/packaging/downstream/consumer.cpp" DESTINATION "${WORK_DIR}")
execute_process(COMMAND "${CXX}" -std=c++20 -I include -pthread consumer.cpp -o consumer
                WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compiling with include/ copied alone failed")
endif()
execute_process(COMMAND "${WORK_DIR}/consumer" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the consumer built from include/ alone failed")
endif()
