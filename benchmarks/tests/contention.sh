#!/usr/bin/env bash
# A busy machine, then a quiet one: chunkwise-bench synthetic --serial-fraction 0 (perfectly parallel
# by construction) at 1 and 2 threads, first with every core kept busy by other processes (one more
# than the cores), then alone. Busy: every point is contended, the table says so in words, and there
# is no Amdahl serial fraction and no advice. Quiet: no point is contended and the fit is printed.
# usage: contention.sh CHUNKWISE_BENCH OUT_DIR
set -euo pipefail
bench="$1" out="$2"
rm -rf "$out"
mkdir -p "$out"
hogs=()
stop_hogs() {
  ((${#hogs[@]})) || return 0
  kill "${hogs[@]}" 2>/dev/null || true
  wait "${hogs[@]}" 2>/dev/null || true
  hogs=()
}
trap stop_hogs EXIT
for _ in $(seq $(($(nproc) + 1))); do
  /bin/sh -c 'while :; do :; done' &
  hogs+=($!)
done
sleep 0.5
run=("$bench" synthetic --serial-fraction 0 --seconds 0.3 --threads 1,2 --repeats 3 --precision 0)
"${run[@]}" --out "$out/busy" > "$out/busy.txt"
stop_hogs
sleep 1
"${run[@]}" --out "$out/quiet" > "$out/quiet.txt"
/usr/bin/python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
busy = json.load(open(out + "/busy/scaling.json"))
text = open(out + "/busy.txt").read()
for p in busy["points"]:
    assert p["contended"] is True and p["cpu_share"] < 0.8, (p["workers"], p["cpu_share"], text)
assert busy["machine"]["load"] is not None, busy["machine"]
assert busy["amdahl"]["serial_fraction"] is None, busy["amdahl"]
assert "contended" in busy["amdahl"]["note"], busy["amdahl"]
assert busy["prediction"] is None or "recommended_workers" not in busy["prediction"], busy["prediction"]
assert "this point measures the machine, not the workload" in text, text
assert "serial fraction" not in text and "ask for" not in text, text
print("busy: " + "; ".join("%d workers got %.2f of a core" % (p["workers"], p["cpu_share"]) for p in busy["points"]))
quiet = json.load(open(out + "/quiet/scaling.json"))
qtext = open(out + "/quiet.txt").read()
for p in quiet["points"]:
    assert p["contended"] is False, (p["workers"], p["cpu_share"], qtext)
assert quiet["amdahl"]["serial_fraction"] is not None and quiet["amdahl"]["serial_fraction"] < 0.1, qtext
assert "serial fraction" in qtext and "contended" not in qtext, qtext
print("quiet: serial fraction %.4f, no point contended" % quiet["amdahl"]["serial_fraction"])
PY
