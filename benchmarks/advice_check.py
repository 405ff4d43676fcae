#!/usr/bin/env python3
"""The scaling advice checked against what it predicts, for a node of 16 cores or more: for every
layout of the reference workload (a frame per chunk, contiguous, automatic chunks, gzip 1, shuffle +
gzip 1), `chunkwise-bench rmsd` is measured at the --fit worker counts (default 1,2,4), and the fit
the prediction chose (the per-phase model, Amdahl or the USL) is compared with rmsd measured at the
--check counts (default 8,16). Prints one table: predicted, measured and the error at each checked
count, and the advice the fit gave; writes every figure as JSON.

    python3 benchmarks/advice_check.py --bench PROG --dir DIR [--fit 1,2,4] [--check 8,16]
        [--frames 480] [--atoms 111815] [--layouts chunk1,contig,auto,gzip1,shgzip1]
        [--precision 0.03] [--budget-s 60] [--json FILE]

With fewer than three fitted counts there is no prediction: the report's Amdahl fit is compared
instead (and said so). A contended fit (other work on the machine) predicts nothing: its row says
why. Exit status 1 if a run fails.
"""
import argparse
import json
import math
import os
import subprocess
import sys

LAYOUTS = {"chunk1": "a frame per chunk", "contig": "contiguous", "auto": "automatic chunks",
           "gzip1": "gzip 1, a frame per chunk", "shgzip1": "shuffle + gzip 1, a frame per chunk"}


def counts(text, name):
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        sys.exit("advice_check: --%s: '%s' is not a list of worker counts such as 1,2,4" % (name, text))
    if not values or min(values) < 1:
        sys.exit("advice_check: --%s: '%s': counts are whole numbers of at least 1" % (name, text))
    return values


def law_of(report):
    """The chosen law's time at n workers, its name, and why there is none (None, name, why)."""
    q = report.get("prediction") or {}
    if "fits" in q:
        chosen, fits = q["chosen"], q["fits"]
        if chosen == "model":
            m = fits["model"]
            cap = m.get("read_cap", 0.0)

            def model(n):
                g = n if m["growth"] == "n" else math.log2(n)
                return m["t_serial"] + m["work"] / n + max(m["read_one"] / n, cap) + m["comm"] * g
            return model, "model", None
        if chosen == "amdahl":
            a = fits["amdahl"]
            return (lambda n: a["t1"] * (a["serial_fraction"] + (1 - a["serial_fraction"]) / n)), "amdahl", None
        u = fits["usl"]
        return (lambda n: u["t1"] * (1 + u["sigma"] * (n - 1) + u["kappa"] * n * (n - 1)) / n), "usl", None
    a = report.get("amdahl") or {}
    if a.get("serial_fraction") is not None:
        s, t1 = a["serial_fraction"], a["t1"]
        return (lambda n: t1 * (s + (1 - s) / n)), "amdahl (no prediction: %s)" % q.get("note", "none"), None
    return None, "-", (a.get("note") or q.get("note") or "no fit")


def advice_of(report):
    q = report.get("prediction") or {}
    if q.get("confident"):
        return "ask for %d" % q["recommended_workers"]
    if "fits" in q:
        nxt = q.get("next_note") or ("measure %d to decide" % q["next_measurement"]
                                     if q.get("next_measurement") is not None else "")
        return "not one count: %s%s" % (q.get("reason", ""), "; " + nxt if nxt else "")
    return "none: " + q.get("note", "no prediction")


def rmsd(args, path, threads, out):
    cmd = [args.bench, "rmsd", "--file", path, "--threads", ",".join(map(str, threads)), "--out", out,
           "--precision", str(args.precision), "--budget-s", str(args.budget_s),
           "--cores", str(len(os.sched_getaffinity(0)))]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("advice_check: %s failed (exit %d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    with open(os.path.join(out, "scaling.json")) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--fit", default="1,2,4")
    ap.add_argument("--check", default="8,16")
    ap.add_argument("--frames", type=int, default=480)
    ap.add_argument("--atoms", type=int, default=111815)
    ap.add_argument("--layouts", default=",".join(LAYOUTS))
    ap.add_argument("--precision", type=float, default=0.03)
    ap.add_argument("--budget-s", type=float, default=60)
    ap.add_argument("--json")
    args = ap.parse_args()
    fit, check = counts(args.fit, "fit"), counts(args.check, "check")
    layouts = args.layouts.split(",")
    for name in layouts:
        if name not in LAYOUTS:
            sys.exit("advice_check: --layouts: '%s' is not one of %s" % (name, ", ".join(LAYOUTS)))
    if not (os.path.isfile(args.bench) and os.access(args.bench, os.X_OK)):
        sys.exit("advice_check: --bench: '%s' is not an executable file" % args.bench)
    cores = len(os.sched_getaffinity(0))
    os.makedirs(args.dir, exist_ok=True)
    rows, worst = [], 0.0
    for name in layouts:
        path = os.path.join(args.dir, name + ".h5")
        if not os.path.exists(path):
            g = subprocess.run([args.bench, "generate", "--layout", name, "--atoms", str(args.atoms), "--frames",
                                str(args.frames), "--out", path], capture_output=True, text=True)
            if g.returncode != 0:
                sys.exit("advice_check: generating %s failed: %s" % (path, g.stderr.strip()))
        fitted = rmsd(args, path, fit, os.path.join(args.dir, name + "-fit"))
        measured = rmsd(args, path, check, os.path.join(args.dir, name + "-check"))
        law, chosen, why = law_of(fitted)
        for p in measured["points"]:
            n, m = p["workers"], p["seconds"]["mean"]
            pred = law(n) if law else None
            err = (pred - m) / m if pred else None
            if err is not None and not p.get("contended"):
                worst = max(worst, abs(err))
            rows.append({"layout": name, "workers": n, "measured_s": m, "predicted_s": pred, "error": err,
                         "chosen": chosen, "why_none": why, "contended": p.get("contended", False),
                         "advice": advice_of(fitted)})
    print("advice checked on %d cores: fitted at %s, measured at %s" % (cores, args.fit, args.check))
    print("| layout | workers | measured s | predicted s | error | fit | advice from the fit |")
    print("| --- | ---: | ---: | ---: | ---: | --- | --- |")
    for r in rows:
        over = " (oversubscribed: %d cores)" % cores if r["workers"] > cores else ""
        busy = " (contended)" if r["contended"] else ""
        if r["predicted_s"] is None:
            print("| %s | %d | %.4f%s | - | - | none: %s | %s |" % (LAYOUTS[r["layout"]], r["workers"], r["measured_s"],
                                                                 busy + over, r["why_none"], r["advice"]))
        else:
            print("| %s | %d | %.4f%s | %.4f | %+.1f%% | %s | %s |" %
                  (LAYOUTS[r["layout"]], r["workers"], r["measured_s"], busy + over, r["predicted_s"],
                   100 * r["error"], r["chosen"], r["advice"]))
    print("largest error of a clean point: %.1f%%" % (100 * worst))
    out = args.json or os.path.join(args.dir, "advice-check.json")
    with open(out, "w") as f:
        json.dump({"cores": cores, "fit": fit, "check": check, "rows": rows}, f, indent=1)
    print("advice check ok: %s" % out)


if __name__ == "__main__":
    main()
