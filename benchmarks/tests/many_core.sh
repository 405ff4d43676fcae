#!/usr/bin/env bash
# The many-core suite on small files at 1 and 2 threads: one table with every layout, codec and
# first-read row, no wrong values, its JSON; and bad input refused before anything runs.
#   many_core.sh MANY_CORE_SH CHUNKWISE_BENCH SCRATCH_DIR
set -uo pipefail
suite="$1" bench="$2" tmp="$3"
rm -rf "$tmp"
mkdir -p "$tmp"
status=0
expect() {  # expect "message regex" command...
  local want="$1"; shift
  local out rc
  out=$("$@" 2>&1); rc=$?
  if ((rc != 2)) || ! grep -qE -- "$want" <<< "$out" || grep -q "many-core suite:" <<< "$out"; then
    echo "FAILED: $* -> exit $rc, output: $out (wanted exit 2 before anything runs, saying: $want)"
    status=1
  else
    echo "ok: $* -> $(tail -n 1 <<< "$out")"
  fi
}
cores=$(nproc)
# A copy with no chunkwise-bench beside it, on PATH or in CHUNKWISE_BENCH.
mkdir -p "$tmp/copy/share/chunkwise/many-core"
cp "$suite" "$tmp/copy/share/chunkwise/many-core/"
expect "no chunkwise-bench found: pass --bench PROG or set CHUNKWISE_BENCH" env -u CHUNKWISE_BENCH PATH=/usr/bin:/bin \
  bash "$tmp/copy/share/chunkwise/many-core/many-core.sh" --dir "$tmp/x"
expect "'$tmp/none' is not an executable file" bash "$suite" --bench "$tmp/none"
expect "does not run as chunkwise-bench" bash "$suite" --bench /bin/true
expect "--cores $((cores + 1)): this process may run on $cores cores only" bash "$suite" --bench "$bench" --cores $((cores + 1)) --dir "$tmp/x"
expect "--cores: '0' is not a positive count" bash "$suite" --bench "$bench" --cores 0 --dir "$tmp/x"
expect "--frames: 'many' is not a positive count" bash "$suite" --bench "$bench" --frames many --dir "$tmp/x"
expect "too little space in '$tmp/x': the files take up to [0-9]+ MiB" bash "$suite" --bench "$bench" --frames 100000000 --dir "$tmp/x"
expect "unknown argument '--colour'" bash "$suite" --colour
if ls "$tmp/x"/*.h5 > /dev/null 2>&1; then echo "FAILED: bad input wrote files"; status=1; fi
# Help is asked for, not a mistake: the usage on standard output, exit 0.
help=$(bash "$suite" --help 2>/dev/null); rc=$?
if ((rc == 0)) && grep -q "many-core.sh \[--bench PROG\]" <<< "$help"; then
  echo "ok: --help -> exit 0, the usage"
else
  echo "FAILED: --help -> exit $rc, output: $help"; status=1
fi

# A run: 12 frames x 3000 atoms, 2000 rows of first-read, 1 and 2 threads (at most the cores).
n=2; ((cores < 2)) && n=1
out=$(bash "$suite" --bench "$bench" --dir "$tmp/run" --cores $n --repeats 1 --frames 12 --atoms 3000 \
      --first-rows 2000 --json "$tmp/run/out.json" 2>&1); rc=$?
echo "$out"
if ((rc != 0)); then echo "FAILED: the suite exited $rc"; status=1; fi
for row in "read uncompressed, a frame per chunk" "read contiguous" "read gzip 1, a frame per chunk" \
           "read shuffle \+ gzip 1, a frame per chunk" "codec lz4" "codec zstd" "first read, 2000 gzip chunks of 1 KiB"; do
  grep -qE "^$row +$n +[0-9.]+s +[0-9.]+s +[0-9.]+x" <<< "$out" || { echo "FAILED: no row '$row' at $n threads"; status=1; }
done
if grep -q "WRONG VALUES" <<< "$out"; then echo "FAILED: wrong values"; status=1; fi
/usr/bin/python3 - "$tmp/run/out.json" <<'PY' || status=1
import json, sys
j = json.load(open(sys.argv[1]))
assert j["rows"] and all(r["chunkwise"] > 0 and r["floor"] > 0 for r in j["rows"]), j["rows"]
assert all(j["read"][k]["same_values"] for k in j["read"]), "read: values differ"
assert all(j["codecs"][k]["same_values"] for k in j["codecs"]), "codecs: values differ"
print("json ok: %d rows" % len(j["rows"]))
PY
((status == 0)) && echo "many-core suite ok"
exit $status
