#!/usr/bin/env bash
# Installs the Debian / Ubuntu packages chunkwise's own builds need, when any are missing.
#   bash cmake/install-debian-deps.sh main   # what examples/run-all.sh needs
#   bash cmake/install-debian-deps.sh test   # what tests/run-all.sh needs (a superset)
# Uses sudo when not run as root. Installs nothing when everything is there.
set -euo pipefail

main_pkgs=(g++ cmake make pkg-config libopenmpi-dev openmpi-bin libboost-mpi-dev nlohmann-json3-dev
           libhdf5-dev libxtensor-dev zlib1g-dev libdeflate-dev liblz4-dev libzstd-dev libblosc-dev libbz2-dev
           gnuplot-nox python3-h5py python3-mdanalysis python3-zarr)
# The HDF5 filter plugins (LZ4, bzip2, Blosc, bitshuffle, LZF) write the tests' compressed files
# through h5py and decode them for the H5Dread reference; python3-zstandard writes Zstandard chunks;
# python3-xarray opens the Zarr groups chunkwise writes, and (with python3-h5netcdf) its HDF5 files.
# libclang-rt-dev: clang's sanitizer runtimes (the asan stage is built by clang).
test_pkgs=("${main_pkgs[@]}" clang libclang-rt-dev doxygen catch2 libbenchmark-dev libtbb-dev hdf5-tools libhdf5-openmpi-dev
           python3-mdanalysis python3-dask python3-mpi4py python3-xarray python3-h5netcdf slurm-wlm munge
           hdf5-filter-plugin hdf5-filter-plugin-blosc-serial bitshuffle hdf5-plugin-lzf python3-zstandard
           debootstrap ccache clang-format)

case "${1:-test}" in
  main) wanted=("${main_pkgs[@]}") ;;
  test) wanted=("${test_pkgs[@]}") ;;
  *) echo "usage: $0 main|test" >&2; exit 2 ;;
esac

missing=()
for p in "${wanted[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
((${#missing[@]} == 0)) && exit 0

sudo=()
if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
echo "chunkwise: installing ${missing[*]}" >&2
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
