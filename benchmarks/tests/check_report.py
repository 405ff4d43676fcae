"""Checks a report folder written by chunkwise-bench against the documented schema (docs/scaling.md):

  check_report.py DIR [--points N] [--mode threads|mpi|hybrid] [--ranks 1,2] [--baseline N]
                      [--serial MIN MAX] [--plots] [--hosts N]
                      [--model t_serial=0.05,work=0.45,read_one=0.16,comm=0.005,growth=n,s16=3.0]

Every key of the schema must be there; the CSV headers exact; each point's phases (the critical
path) add up to its wall time within 2%; speedup, efficiency, Karp-Flatt and Amdahl only against a
measured baseline. --model: the prediction's fitted parameters each within 10% of the given ones,
and the predicted speedup at 16 workers too.
"""
import argparse
import csv
import json
import math
import os
import sys


def fail(msg):
    print("check_report: %s: %s" % (ARGS.dir, msg))
    sys.exit(1)


def need(obj, keys, where):
    for k in keys:
        if k not in obj:
            fail("%s has no \"%s\"" % (where, k))


def main():
    path = os.path.join(ARGS.dir, "scaling.json")
    if not os.path.exists(path):
        fail("no scaling.json")
    with open(path) as f:
        r = json.load(f)
    need(r, ["workload", "input", "mode", "machine", "chunkwise_version", "baseline_workers", "baseline_note", "io",
             "points", "amdahl", "prediction", "fingerprint", "hosts_given"], "the report")
    need(r["fingerprint"], ["program", "workload", "args", "input"], "fingerprint")
    need(r["fingerprint"]["input"], ["path", "bytes", "layout"], "fingerprint input")
    need(r["machine"], ["host", "cpu", "cores", "l3"], "machine")
    need(r["io"], ["bytes_read", "shared_bandwidth", "probe"], "io")
    if ARGS.mode and r["mode"] != ARGS.mode:
        fail("mode is %s, not %s" % (r["mode"], ARGS.mode))
    pts = r["points"]
    if ARGS.points is not None and len(pts) != ARGS.points:
        fail("%d points, not %d" % (len(pts), ARGS.points))
    n0 = r["baseline_workers"]
    if n0 != min(p["workers"] for p in pts):
        fail("baseline_workers %s is not the fewest workers measured" % n0)
    if ARGS.baseline is not None and n0 != ARGS.baseline:
        fail("baseline_workers is %s, not %s" % (n0, ARGS.baseline))
    if n0 > 1 and not r["baseline_note"]:
        fail("baseline_workers %s > 1 without a note saying so" % n0)
    for i, p in enumerate(pts):
        where = "point %d (%s workers)" % (i, p.get("workers"))
        need(p, ["workers", "ranks", "threads", "hosts", "repeats", "seconds", "samples", "phases", "per_rank",
                 "slowest", "imbalance", "lock_held_share", "lock_bound", "speedup", "efficiency", "karp_flatt",
                 "interval", "stop", "per_host", "read_bandwidth", "core_hours"], where)
        if p["repeats"] != len(p["samples"]):
            fail("%s: repeats %s for %d samples" % (where, p["repeats"], len(p["samples"])))
        if p["stop"] not in ("precision", "budget", "max repeats", "fixed"):
            fail("%s: stop '%s'" % (where, p["stop"]))
        if len(p["samples"]) > 1:
            lo, hi = p["interval"]
            if not lo <= p["seconds"]["mean"] <= hi:
                fail("%s: the interval %s does not hold the mean" % (where, p["interval"]))
        for h in p["per_host"]:
            need(h, ["host", "ranks", "threads", "busy", "read_bytes", "read", "slowest_rank"], where + " per_host")
        if sum(h["ranks"] for h in p["per_host"]) != p["ranks"]:
            fail("%s: per_host holds %d ranks of %d" % (where, sum(h["ranks"] for h in p["per_host"]), p["ranks"]))
        need(p["lock_bound"], ["16", "64", "1024"], where + " lock_bound")
        share = p["lock_held_share"]
        if not 0 <= share <= 1:
            fail("%s: lock_held_share %s is not a share" % (where, share))
        for n in (16, 64, 1024):
            want = 1 / (share + (1 - share) / n)
            if abs(p["lock_bound"][str(n)] - want) > 1e-6 * want:
                fail("%s: lock_bound at %d is %s, not %s" % (where, n, p["lock_bound"][str(n)], want))
        need(p["seconds"], ["mean", "std", "min"], where + " seconds")
        need(p["phases"], ["read", "compute", "wait", "combine", "other", "lock"], where + " phases")
        need(p["slowest"], ["rank", "host"], where + " slowest")
        if len(p["per_rank"]) != p["ranks"]:
            fail("%s: %d per_rank entries for %d ranks" % (where, len(p["per_rank"]), p["ranks"]))
        for rk in p["per_rank"]:
            need(rk, ["rank", "host", "threads", "busy", "read", "compute", "wait", "combine", "lock", "read_bytes"],
                 where + " per_rank")
        total = sum(p["phases"][k] for k in ("read", "compute", "wait", "combine", "other"))
        wall = p["seconds"]["mean"]
        if abs(total - wall) > 0.02 * wall:
            fail("%s: the phases add up to %.6f s of %.6f s wall (more than 2%% apart)" % (where, total, wall))
        if n0 > 1 and p["karp_flatt"] is not None:
            fail("%s: a Karp-Flatt figure without a measured t(1)" % where)
        if p["workers"] == n0 and abs(p["speedup"] - 1.0) > 1e-12:
            fail("%s: the baseline's speedup is %s, not 1" % (where, p["speedup"]))
        if ARGS.hosts is not None and p["hosts"] != ARGS.hosts and p["ranks"] >= ARGS.hosts:
            fail("%s: %d hosts, not %d" % (where, p["hosts"], ARGS.hosts))
    if ARGS.ranks is not None:
        ranks = [p["ranks"] for p in pts]
        want = [int(x) for x in ARGS.ranks.split(",")]
        if ranks != want:
            fail("ranks of the points are %s, not %s" % (ranks, want))
    need(r["amdahl"], ["serial_fraction", "max_speedup", "t1", "error", "note"], "amdahl")
    s = r["amdahl"]["serial_fraction"]
    if n0 > 1 and s is not None:
        fail("an Amdahl fit without a measured t(1)")
    if ARGS.serial:
        lo, hi = ARGS.serial
        if s is None or not lo <= s <= hi:
            fail("fitted serial fraction %s outside [%s, %s]" % (s, lo, hi))
        print("fitted serial fraction %s in [%s, %s]" % (s, lo, hi))
    with open(os.path.join(ARGS.dir, "scaling.csv")) as f:
        rows = list(csv.reader(f))
    header = ("workers,ranks,threads,repeats,mean_s,std_s,min_s,read_s,compute_s,wait_s,combine_s,other_s,lock_s,"
              "speedup,efficiency,karp_flatt,baseline_workers,slowest_rank,slowest_host,imbalance,lock_held_share,"
              "lock_bound_16,lock_bound_64,lock_bound_1024,interval_low_s,interval_high_s,stop,read_bandwidth,core_hours,"
              "cpu_share,cpu_use,contended,load,steal")
    if ",".join(rows[0]) != header:
        fail("unexpected CSV header: %s" % ",".join(rows[0]))
    if len(rows) - 1 != len(pts):
        fail("%d CSV rows for %d points" % (len(rows) - 1, len(pts)))
    with open(os.path.join(ARGS.dir, "scaling_ranks.csv")) as f:
        ranks_rows = list(csv.reader(f))
    if ",".join(ranks_rows[0]) != ("workers,ranks,threads,rank,host,rank_threads,busy_s,read_s,compute_s,wait_s,"
                                   "combine_s,lock_s,slowest,read_bytes"):
        fail("unexpected scaling_ranks.csv header: %s" % ",".join(ranks_rows[0]))
    if len(ranks_rows) - 1 != sum(p["ranks"] for p in pts):
        fail("scaling_ranks.csv has %d rows for %d ranks" % (len(ranks_rows) - 1, sum(p["ranks"] for p in pts)))
    with open(os.path.join(ARGS.dir, "scaling_hosts.csv")) as f:
        hosts_rows = list(csv.reader(f))
    if ",".join(hosts_rows[0]) != "workers,ranks,threads,host,host_ranks,host_threads,busy_s,read_s,read_bytes,slowest_rank":
        fail("unexpected scaling_hosts.csv header: %s" % ",".join(hosts_rows[0]))
    q = r["prediction"]
    if q and "fits" in q:
        need(q, ["chosen", "held_out_error", "confident", "reason", "recommended_workers", "range", "next_measurement"],
             "prediction")
        if q["chosen"] not in ("model", "amdahl", "usl"):
            fail("chosen fit '%s'" % q["chosen"])
        if q["confident"] != (q["recommended_workers"] is not None) or q["confident"] != (q["reason"] is None):
            fail("confident %s with recommended_workers %s and reason %s" %
                 (q["confident"], q["recommended_workers"], q["reason"]))
        if not q["confident"] and not q["reason"]:
            fail("not confident without a reason")
        lo, hi = q["range"]
        if not 1 <= lo <= hi:
            fail("range %s" % q["range"])
        f = q["fits"]
        if not 0 <= f["amdahl"]["serial_fraction"] <= 1:
            fail("amdahl serial_fraction %s outside [0, 1]" % f["amdahl"]["serial_fraction"])
        if not (0 <= f["usl"]["sigma"] <= 1 and f["usl"]["kappa"] >= 0):
            fail("usl sigma %s, kappa %s outside their bounds" % (f["usl"]["sigma"], f["usl"]["kappa"]))
        for k in ("t_serial", "work", "read_one", "comm", "worker_bandwidth", "shared_bandwidth"):
            if f["model"][k] < 0:
                fail("model %s %s is negative" % (k, f["model"][k]))
    if ARGS.plots:
        for png in ("speedup.png", "phases.png"):
            if not os.path.exists(os.path.join(ARGS.dir, png)):
                fail("no " + png)
    if ARGS.model:
        q = r["prediction"]
        if not q or "fits" not in q:
            fail("no prediction (%s)" % (q or {}).get("note"))
        got = q["fits"]["model"]
        for item in ARGS.model.split(","):
            key, value = item.split("=")
            if key == "growth":
                if got["growth"] != ("n" if value == "n" else "log2(n)"):
                    fail("fitted g(N) is %s, not %s" % (got["growth"], value))
                continue
            if key == "s16":
                pred = [p for p in q["points"] if p["workers"] == 16][0]["speedup"]
                if abs(pred - float(value)) > 0.1 * float(value):
                    fail("predicted S(16) %.3f is not within 10%% of %s" % (pred, value))
                continue
            v = got[key]
            if abs(v - float(value)) > 0.1 * abs(float(value)):
                fail("fitted %s %.6g is not within 10%% of %s" % (key, v, value))
            print("fitted %s %.6g (known %s)" % (key, v, value))
    print("%s: %d points, mode %s, baseline %s, phases add up, serial fraction %s" %
          (ARGS.dir, len(pts), r["mode"], n0, s))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--points", type=int)
    parser.add_argument("--mode")
    parser.add_argument("--ranks")
    parser.add_argument("--baseline", type=int)
    parser.add_argument("--serial", type=float, nargs=2)
    parser.add_argument("--plots", action="store_true")
    parser.add_argument("--hosts", type=int)
    parser.add_argument("--model")
    ARGS = parser.parse_args()
    main()
