#!/usr/bin/env bash
# Builds and runs every test: the developer build with GCC in compiled mode (tests, examples, docs
# and the Doxygen API reference, package tests, benchmark smoke runs), then the tests, examples, docs
# programs and benchmarks built header-only by clang with warnings as errors under ASan + UBSan,
# then the threaded tests under ThreadSanitizer, then the HDF5 tests against Debian's parallel HDF5
# build (MPI-IO writes), then the HDF5 tests against HDF5 1.14 and the newest 2.x built from
# Debian's source packages (cmake/build-hdf5-release.sh: built once, cached; 2.x only where it can
# be fetched), then the core, HDF5 and Zarr suites header-only in a Debian sid root
# (cmake/sid-root.sh: made once, cached) with sid's GCC, CMake, HDF5 2.x, h5py, xtensor and
# Catch2 v3. Every stage runs the HDF5 suites' variants (the same tests with another read path)
# that its tests have (docs/development.md).
# Installs missing Debian packages first. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash cmake/install-debian-deps.sh test

jobs=$(nproc)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Compilations are cached outside the clone (ccache, keyed on paths relative to the clone), so a
# run in a fresh clone on the same machine recompiles only what changed.
launch=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/chunkwise/ccache}" CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  ccache --max-size=8G >/dev/null
  launch=(env CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache)
fi
# Each stage's time, build and tests apart, printed at the end with the total.

times=()
stage_time() {  # NAME SECONDS_BUILDING SECONDS_TESTING
  times+=("$(printf '%-28s build %5d s  tests %5d s' "$1" "$2" "$3")")
}
run_preset() {
  local t0=$SECONDS t1
  "${launch[@]}" cmake --preset "$1" >/dev/null
  cmake --build --preset "$1" -j "$jobs"
  t1=$SECONDS
  ctest --preset "$1" -j "$jobs" 2>&1 | tee -a "$log"
  stage_time "${2:-$1}" $((t1 - t0)) $((SECONDS - t1))
}
for preset in dev asan tsan parallel-hdf5; do
  echo "=== chunkwise: $preset ==="
  run_preset "$preset"
done
for series in 1.14 2; do
  echo "=== chunkwise: HDF5 $series.x from Debian's source package ==="
  rc=0
  root=$(bash cmake/build-hdf5-release.sh "$series" | tail -1) || rc=$?
  if ((rc == 3)) && [[ "$series" != 1.14 ]]; then
    echo "HDF5 $series.x: none can be fetched from Debian; skipped"
    continue
  elif ((rc != 0)); then
    echo "HDF5 $series.x: cannot be built (exit $rc)"
    exit 1
  fi
  echo "HDF5 $series.x: $root"
  CHUNKWISE_TEST_HDF5_ROOT=$root CHUNKWISE_TEST_HDF5_SERIES=$series run_preset hdf5-release "hdf5-release ($series.x)"
done
echo "=== chunkwise: Debian sid: HDF5 2.x, h5py, GCC, CMake, xtensor and Catch2 of sid ==="
rc=0
sid=$(bash cmake/sid-root.sh | tail -1) || rc=$?
if ((rc == 3)); then
  echo "Debian sid root: cannot be made on this machine (see above); SKIPPED: HDF5 2.x and sid's toolchain untested"
elif ((rc != 0)); then
  echo "Debian sid root: failed (exit $rc)"
  exit 1
else
  t0=$SECONDS
  bash tests/run-in-sid.sh "$sid" 2>&1 | tee -a "$log"
  times+=("$(printf '%-28s build and tests %5d s' "sid" $((SECONDS - t0)))")
fi
# One closing line for all the runs.
passed=0 failed=0
while read -r _ _ _ nfail _ _ _ _ total; do
  passed=$((passed + total - nfail)); failed=$((failed + nfail))
done < <(grep -E '^[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$log")
echo "stage times:"
printf '  %s\n' "${times[@]}"
printf '  %-28s %d s (%d min)\n' "total" $SECONDS $((SECONDS / 60))
echo "all presets: $passed passed, $failed failed"
((failed == 0))
