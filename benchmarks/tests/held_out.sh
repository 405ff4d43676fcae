#!/usr/bin/env bash
# The prediction held out: for synthetic workloads whose work sleeps (it scales past this machine's
# cores), fitted at 1, 2 and 4 workers, the predicted t(8) and t(16) must be within 10% of the
# measured ones (and the advice confident for the plain Amdahl case). Then the cases where it must not be: spinning work on
# more workers than --cores, and bad input (--cores 0, a merge of different work).
# usage: held_out.sh CHUNKWISE_BENCH OUT_DIR
set -euo pipefail
bench="$1" out="$2"
rm -rf "$out"
mkdir -p "$out"
cases=(
  "amdahl|--serial-fraction 0.1 --seconds 0.4"
  "shared-read|--serial-fraction 0.02 --seconds 0.3 --read-mib 64 --worker-mibps 400 --shared-mibps 1000"
  "comm-n|--serial-fraction 0.05 --seconds 0.4 --comm-ms 5 --comm-growth n"
  "comm-log|--serial-fraction 0.05 --seconds 0.4 --comm-ms 10 --comm-growth log"
)
for c in "${cases[@]}"; do
  name="${c%%|*}" args="${c#*|}"
  # shellcheck disable=SC2086
  "$bench" synthetic $args --work sleep --threads 1,2,4 --out "$out/$name-fit" > /dev/null
  # shellcheck disable=SC2086
  "$bench" synthetic $args --work sleep --threads 8,16 --out "$out/$name-check" > /dev/null
done
/usr/bin/python3 - "$out" "${cases[@]%%|*}" <<'PY'
import json, sys
out, names = sys.argv[1], sys.argv[2:]
worst = 0
print("| workload | chosen | held-out error (fit) | predicted 8 / measured | predicted 16 / measured | advice |")
print("| --- | --- | ---: | ---: | ---: | --- |")
for n in names:
    fit = json.load(open("%s/%s-fit/scaling.json" % (out, n)))
    check = json.load(open("%s/%s-check/scaling.json" % (out, n)))
    q = fit["prediction"] or {}
    if "points" not in q:  # no fit: its points were contended (other work on the cores), said in its note
        sys.exit("%s: no prediction: %s" % (n, q.get("note")))
    pred = {p["workers"]: p["seconds"] for p in q["points"]}
    errs = []
    for p in check["points"]:
        m = p["seconds"]["mean"]
        errs.append((pred[p["workers"]] - m) / m)
    worst = max(worst, max(abs(e) for e in errs))
    advice = ("ask for %d" % q["recommended_workers"]) if q["confident"] else "not confident: " + q["reason"]
    print("| %s | %s | %.1f%% | %+.1f%% | %+.1f%% | %s |" %
          (n, q["chosen"], 100 * q["held_out_error"], 100 * errs[0], 100 * errs[1], advice))
    if n == "amdahl" and not q["confident"]:
        sys.exit("%s: not confident: %s" % (n, q["reason"]))
if worst > 0.10:
    sys.exit("a prediction missed by %.1f%% (the limit is 10%%)" % (100 * worst))
print("every prediction of 8 and 16 within %.1f%%" % (100 * worst))
PY

# Spinning work on 4 workers, told there are 2 cores: not confident, says why, names the machine to measure on.
"$bench" synthetic --serial-fraction 0.05 --seconds 0.2 --threads 1,2,4 --cores 2 --out "$out/over" > /dev/null
/usr/bin/python3 - "$out/over/scaling.json" <<'PY'
import json, sys
q = json.load(open(sys.argv[1]))["prediction"] or {}
if "confident" not in q:  # no fit: its points were contended (other work on the cores), said in its note
    sys.exit("oversubscribed: no prediction to check: %s" % q.get("note"))
assert q["confident"] is False, q
assert "the point at 4 workers ran on 2 cores (oversubscribed)" in q["reason"], q["reason"]
assert q["recommended_workers"] is None, q
# 8 workers would decide, but never more than the 2 cores this run was told of: the machine is named.
assert q["next_measurement"] is None, q
assert "measure 8 workers on a machine with at least 8 cores to decide" in q["next_note"], q
assert q["range"][0] <= q["range"][1], q
print("oversubscribed: not confident (%s); the fits allow %s; %s" % (q["reason"], q["range"], q["next_note"]))
PY

# Bad input, named.
if msg=$("$bench" predict --from "$out/over" --cores 0 2>&1); then echo "FAIL: --cores 0 accepted"; exit 1; fi
grep -q -- "--cores: '0' is not a whole number of at least 1" <<< "$msg" || { echo "FAIL: $msg"; exit 1; }
if msg=$("$bench" predict --from "$out/over" --cores -3 2>&1); then echo "FAIL: --cores -3 accepted"; exit 1; fi
grep -q -- "--cores: '-3'" <<< "$msg" || { echo "FAIL: $msg"; exit 1; }
if msg=$("$bench" predict --from "$out/over" --cores-per-node 3 2>&1); then echo "FAIL: --cores-per-node 3 accepted"; exit 1; fi
grep -q "does not divide the point of 4 workers" <<< "$msg" || { echo "FAIL: $msg"; exit 1; }
if msg=$("$bench" merge --out "$out/mixed" "$out/over" "$out/amdahl-fit" 2>&1); then echo "FAIL: different work merged"; exit 1; fi
grep -q "measured different work and cannot be merged: $out/over vs $out/amdahl-fit differ in args" <<< "$msg" ||
  { echo "FAIL: $msg"; exit 1; }
echo "bad input refused: --cores 0, --cores -3, --cores-per-node 3, a merge of different work"
