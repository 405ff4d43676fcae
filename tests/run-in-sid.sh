#!/usr/bin/env bash
# Builds chunkwise's core, HDF5 and Zarr test suites header-only (every other stage of tests/run-all.sh builds its tests
# in compiled mode: so both modes run these suites) inside a Debian sid root (cmake/sid-root.sh) with
# sid's own GCC, CMake, HDF5, xtensor and Catch2, warnings as errors, and runs them there (h5py and zarr-python 3 of
# sid as the reference reader). The source tree is mounted read-only at /src; the build lives in
# ROOT/build/chunkwise and is reused. Mounts are made in a private namespace and vanish with it.
#   bash tests/run-in-sid.sh ROOT
set -euo pipefail
root=${1:?usage: run-in-sid.sh ROOT}
src=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
mkdir -p "$root/src" "$root/build/chunkwise" "$root/proc" "$root/dev" "$root/tmp"
exec unshare --mount --propagation private bash -c '
  set -euo pipefail
  root=$1 src=$2 jobs=$3
  mount --bind "$src" "$root/src"
  mount -o remount,bind,ro "$root/src"
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount -t tmpfs -o size=8g tmpfs "$root/tmp"
  chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 bash -c "
    set -euo pipefail
    echo \"sid: \$(g++ --version | head -1); \$(cmake --version | head -1); HDF5 \$(dpkg-query -W -f=\"\\\${Version}\" libhdf5-dev); h5py \$(python3 -c \"import h5py; print(h5py.__version__, \\\"on HDF5\\\", h5py.version.hdf5_version)\"); zarr-python \$(python3 -c \"import zarr; print(zarr.__version__)\"); xtensor \$(dpkg-query -W -f=\"\\\${Version}\" libxtensor-dev); Catch2 \$(dpkg-query -W -f=\"\\\${Version}\" catch2)\"
    cmake -S /src -B /build/chunkwise -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO=\"-O1 -g1 -DNDEBUG\" -DCHUNKWISE_BUILD_TESTS=ON \
      -DCHUNKWISE_BUILD_EXAMPLES=OFF -DCHUNKWISE_BUILD_DOCS=OFF -DCHUNKWISE_BUILD_BENCHMARKS=OFF \
      -DCHUNKWISE_WITH_MPI=OFF -DCHUNKWISE_WITH_HDF5=ON -DCHUNKWISE_WITH_ZARR=ON -DCHUNKWISE_INSTALL=OFF -DCHUNKWISE_WERROR=ON \
      -DCHUNKWISE_BUILD_LIBRARIES=OFF -DCHUNKWISE_USE_LIBRARIES=OFF -DCHUNKWISE_TESTS_USE_LIBRARIES=OFF >/dev/null
    set -o pipefail
    cmake --build /build/chunkwise -j $jobs 2>&1 | { grep -v \"^\\[\" || true; }
    cd /build/chunkwise && ctest -L \"core|hdf5|zarr\" -j $jobs --output-on-failure
  "
' sid "$root" "$src" "$jobs"
