#!/usr/bin/env bash
# Makes a Debian sid root once (debootstrap --variant=minbase), with what the core, HDF5 and Zarr test
# suites need from sid: its GCC, CMake, HDF5 (2.x), h5py, zarr-python 3, xtensor, Catch2 v3, codec libraries
# and plugins, and prints its path (the last line of standard output). Used by tests/run-all.sh to
# prove chunkwise against the next toolchains and HDF5 series. Cached in
# $CHUNKWISE_CACHE (default ~/.cache/chunkwise)/sid-root and reused on every later run (packages
# added to the list below are installed into it then). Needs root (chroot) and, the first time,
# the network (the Debian archive of this machine's apt configuration: cmake/debian-mirror.sh):
# about 1 GB. Exit status 3: the root cannot be made here (the caller says so and
# skips).
set -euo pipefail
cache=${CHUNKWISE_CACHE:-$HOME/.cache/chunkwise}
root="$cache/sid-root"
pkgs=(g++ cmake make pkg-config libhdf5-dev libxtensor-dev catch2 zlib1g-dev libdeflate-dev liblz4-dev
      libzstd-dev libblosc-dev libbz2-dev python3-h5py python3-numpy hdf5-filter-plugin
      hdf5-filter-plugin-blosc-serial bitshuffle hdf5-plugin-lzf python3-zstandard nlohmann-json3-dev python3-zarr python3-xarray python3-h5netcdf)
if [[ $(id -u) -ne 0 ]]; then
  echo "sid-root: needs root (debootstrap and chroot)" >&2
  exit 3
fi
if [[ ! -f "$root/.chunkwise-root" ]]; then
  if ! command -v debootstrap >/dev/null; then
    echo "sid-root: debootstrap is not installed (Debian: debootstrap)" >&2
    exit 3
  fi
  mkdir -p "$cache"
  rm -rf "$root.tmp"
  # The archive this machine's apt uses (a proxy or local mirror included).
  mirror=$(bash "$(dirname "$0")/debian-mirror.sh") || exit 3
  echo "sid-root: making a Debian sid root in $root from $mirror (about 1 GB, once)" >&2
  if ! debootstrap --variant=minbase --include="$(IFS=,; echo "${pkgs[*]}")" sid "$root.tmp" \
      "$mirror" >"$cache/sid-root.log" 2>&1; then
    echo "sid-root: debootstrap failed (offline, or sid uninstallable today); see $cache/sid-root.log" >&2
    rm -rf "$root.tmp"
    exit 3
  fi
  mv "$root.tmp" "$root"
  touch "$root/.chunkwise-root"
fi
missing=()
for p in "${pkgs[@]}"; do
  chroot "$root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} > 0)); then
  echo "sid-root: installing ${missing[*]} into $root" >&2
  # (A mirror whose Release file has passed its Valid-Until date is still what debootstrap used.)
  if ! { chroot "$root" apt-get -o Acquire::Check-Valid-Until=false update -qq && chroot "$root" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >&2; then
    echo "sid-root: cannot install ${missing[*]} (offline?)" >&2
    exit 3
  fi
fi
echo "$root"
