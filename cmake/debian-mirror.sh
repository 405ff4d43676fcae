#!/usr/bin/env bash
# Prints the URI of the Debian archive this machine's apt uses (behind a proxy or a local mirror,
# that one), read from its apt configuration: the deb822 files /etc/apt/sources.list.d/*.sources
# ("URIs:" of an entry whose suites are not security updates), else the one-line files
# /etc/apt/sources.list and /etc/apt/sources.list.d/*.list ("deb URI SUITE ..."). Used by
# cmake/sid-root.sh and cmake/build-hdf5-release.sh, which fetch from Debian suites this machine
# does not run. Exit status 3 where apt names no Debian archive.
set -euo pipefail
shopt -s nullglob
uri=""
for f in /etc/apt/sources.list.d/*.sources; do
  uri=$(awk '
    function flush() {
      if (!found && uris != "" && suites !~ /-security/ && types ~ /deb/) { print uris; found = 1; exit }
      uris = suites = types = "" }
    /^[[:space:]]*$/ { flush(); next }
    /^[[:space:]]*#/ { next }
    tolower($1) == "uris:"   { uris = $2 }
    tolower($1) == "suites:" { $1 = ""; suites = $0 }
    tolower($1) == "types:"  { $1 = ""; types = $0 }
    END { flush() }' "$f")
  [[ -n $uri ]] && break
done
if [[ -z $uri ]]; then
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $f ]] || continue
    uri=$(awk '$1 == "deb" {
      i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
      if ($(i + 1) !~ /-security/) { print $i; exit } }' "$f")
    [[ -n $uri ]] && break
  done
fi
if [[ -z $uri ]]; then
  echo "debian-mirror: apt's configuration names no Debian archive (/etc/apt/sources.list.d/, /etc/apt/sources.list)" >&2
  exit 3
fi
echo "${uri%/}"
