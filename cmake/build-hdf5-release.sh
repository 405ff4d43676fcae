#!/usr/bin/env bash
# Builds the HDF5 C library of another release series from Debian's source package, once, and
# prints its install prefix (the last line of standard output). Used by tests/run-all.sh to run
# the HDF5 suites against the HDF5 users have beside Debian 12's 1.10.
#
#   bash cmake/build-hdf5-release.sh 1.14      # newest 1.14.x Debian offers
#   bash cmake/build-hdf5-release.sh 2         # newest 2.x, where one can be fetched
#
# The source comes through `apt-get source` with a private apt state (deb-src lines of Debian
# trixie, sid and experimental, from the archive of this machine's apt configuration:
# cmake/debian-mirror.sh; nothing of the system's apt configuration changes). Only the C
# library is built (shared, thread-safe, zlib; no tools, tests, C++, Fortran or high-level
# library), into $CHUNKWISE_CACHE (default ~/.cache/chunkwise)/hdf5-<version>, and reused on
# every later run. Exit status 3: no such release can be fetched (the caller skips it).
set -euo pipefail
series=${1:?usage: build-hdf5-release.sh SERIES (1.14, 2, ...)}
cache=${CHUNKWISE_CACHE:-$HOME/.cache/chunkwise}
state="$cache/apt-src"
mkdir -p "$state/etc" "$state/lists/partial" "$state/cache/archives/partial"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
# The archive this machine's apt uses (a proxy or local mirror included).
mirror=$(bash "$(dirname "$0")/debian-mirror.sh") || exit 3
{
  for suite in trixie sid experimental; do
    echo "deb-src [signed-by=$keyring] $mirror $suite main"
  done
} > "$state/etc/sources.list"
apt_opts=(-oDir::Etc::SourceList="$state/etc/sources.list" -oDir::Etc::SourceParts=/nonexistent
  -oDir::State::Lists="$state/lists" -oDir::Cache="$state/cache" -oAPT::Sandbox::User=root -qq)

# The newest version of the series already built is used without asking the network.
built=$(ls -d "$cache"/hdf5-"$series".* 2>/dev/null | sort -V | tail -1 || true)
if [[ -n "$built" && -f "$built/.chunkwise-built" ]]; then
  echo "$built"
  exit 0
fi

if ! apt-get "${apt_opts[@]}" update >&2; then
  echo "build-hdf5-release: cannot read Debian's source lists (offline?)" >&2
  exit 3
fi
versions=$(apt-cache "${apt_opts[@]}" showsrc hdf5 2>/dev/null | sed -n 's/^Version: //p' | sort -V -r)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for v in $versions; do
  upstream=${v%%+*}
  upstream=${upstream%%-*}
  [[ "$upstream" == "$series".* ]] || continue
  echo "build-hdf5-release: fetching hdf5 $v" >&2
  if ! (cd "$work" && apt-get "${apt_opts[@]}" source --download-only "hdf5=$v" >&2); then
    echo "build-hdf5-release: hdf5 $v is listed but cannot be fetched; trying an older one" >&2
    rm -rf "${work:?}"/*
    continue
  fi
  orig=$(ls "$work"/hdf5_*.orig.tar.* | head -1)
  mkdir -p "$work/src"
  tar -xf "$orig" -C "$work/src" --strip-components=1
  prefix="$cache/hdf5-$upstream"
  echo "build-hdf5-release: building the C library of HDF5 $upstream into $prefix (a few minutes, once)" >&2
  cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DBUILD_SHARED_LIBS=ON -DBUILD_STATIC_LIBS=OFF -DBUILD_TESTING=OFF -DHDF5_BUILD_TOOLS=OFF \
    -DHDF5_BUILD_UTILS=OFF -DHDF5_BUILD_HL_LIB=OFF -DHDF5_BUILD_CPP_LIB=OFF -DHDF5_BUILD_FORTRAN=OFF \
    -DHDF5_BUILD_JAVA=OFF -DHDF5_BUILD_EXAMPLES=OFF -DHDF5_BUILD_DOC=OFF -DHDF5_ENABLE_THREADSAFE=ON \
    -DHDF5_ENABLE_Z_LIB_SUPPORT=ON -DHDF5_ENABLE_ZLIB_SUPPORT=ON -DHDF5_ENABLE_SZIP_SUPPORT=OFF \
    -DHDF5_ALLOW_EXTERNAL_SUPPORT=NO -DALLOW_UNSUPPORTED=ON >"$work/configure.log" 2>&1 ||
    { tail -30 "$work/configure.log" >&2; exit 1; }
  cmake --build "$work/build" -j "$(nproc)" >"$work/build.log" 2>&1 || { tail -30 "$work/build.log" >&2; exit 1; }
  cmake --install "$work/build" >"$work/install.log" 2>&1 || { tail -30 "$work/install.log" >&2; exit 1; }
  touch "$prefix/.chunkwise-built"
  echo "$prefix"
  exit 0
done
echo "build-hdf5-release: Debian offers no HDF5 $series.x that can be fetched" >&2
exit 3
