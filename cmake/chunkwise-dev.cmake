# Flags for chunkwise's own tests, examples, benchmarks and docs: an unexported INTERFACE target,
# never seen by consumers.
set(CHUNKWISE_SANITIZE "" CACHE STRING
    "Sanitizers for chunkwise's own tests and examples: empty, 'address;undefined' or 'thread'")
option(CHUNKWISE_WERROR "Treat warnings as errors in chunkwise's own targets" OFF)

add_library(chunkwise_dev INTERFACE)
target_compile_options(chunkwise_dev INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang,AppleClang>:-Wall -Wextra -Wpedantic>
  $<$<AND:$<BOOL:${CHUNKWISE_WERROR}>,$<CXX_COMPILER_ID:GNU,Clang,AppleClang>>:-Werror>)
target_compile_definitions(chunkwise_dev INTERFACE _GLIBCXX_ASSERTIONS)
if(CHUNKWISE_SANITIZE)
  list(JOIN CHUNKWISE_SANITIZE "," _chunkwise_san)
  target_compile_options(chunkwise_dev INTERFACE -fsanitize=${_chunkwise_san} -fno-omit-frame-pointer
                         -fno-sanitize-recover=all)
  target_link_options(chunkwise_dev INTERFACE -fsanitize=${_chunkwise_san})
endif()

# Environment for running sanitized programs from ctest.
set(CHUNKWISE_TEST_ENV
  "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1"
  "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/lsan.supp:print_suppressions=0"
  "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
  "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1")
