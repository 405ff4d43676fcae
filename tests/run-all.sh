#!/usr/bin/env bash
# Builds and runs every test: the developer build (tests, examples, docs and the Doxygen API
# reference, package tests, benchmark smoke runs), then the suite under AddressSanitizer + UBSan,
# then the threaded tests under ThreadSanitizer, then the HDF5 tests against Debian's parallel
# HDF5 build (MPI-IO writes), then everything again built by clang with warnings as errors.
# Installs missing Debian packages first. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash cmake/install-debian-deps.sh test

jobs=$(nproc)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for preset in dev asan tsan parallel-hdf5 clang; do
  echo "=== chunkwise: $preset ==="
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  ctest --preset "$preset" -j "$jobs" 2>&1 | tee -a "$log"
done

# One closing line for all the runs.
passed=0 failed=0
while read -r _ _ _ nfail _ _ _ _ total; do
  passed=$((passed + total - nfail)); failed=$((failed + nfail))
done < <(grep -E '^[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$log")
echo "all presets: $passed passed, $failed failed"
((failed == 0))
