"""Reading at the hardware's limit (docs/performance.md): the reference workload on each layout
against the floors, a hand-written HDF5 C loop and MDAnalysis, in one run, as one table.

    /usr/bin/python3 benchmarks/read-layouts.py --bench build/bench/benchmarks/chunkwise-bench \\
        [--threads 1,2] [--repeats 3] [--no-mdanalysis] FILE.h5...

For each file it runs `chunkwise-bench read --json` (cat, the pread floor of the same stored bytes at
each thread count and with 128 MiB blocks, inflate alone, the C loop, chunkwise at each thread count
and with 128 MiB blocks, the read alone, the lock of the read path, peak RSS) and
`benchmarks/peers/mda_rmsd.py` (MDAnalysis, one process), then prints seconds per reader and layout,
every chunkwise read as "x of the floor" at each thread count, and the CPU they were measured on.
Exit status 1 when a file's chunkwise values differ from the C loop's.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "peers"))
from peers import run, seconds  # noqa: E402  (the peers' runner and their "seconds" line)


def short(layout):
    if layout == "contiguous":
        return "contiguous"
    return layout.replace("chunks ", "").replace(", ", ",").replace(" + shuffle + deflate", " sh+gz").replace(
        " + deflate", " gz")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--bench", required=True, help="the chunkwise-bench program")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-mdanalysis", action="store_true")
    a = ap.parse_args()
    for f in a.files:
        if not os.path.isfile(f):
            sys.exit("read-layouts.py: no file " + f)
    results = []
    for f in a.files:
        # Status 1: the values differ from the C loop's (reported below), the figures still stand.
        out = run([a.bench, "read", "--file", f, "--threads", a.threads, "--repeats", str(a.repeats), "--json"],
                  ok=(0, 1))
        sys.stdout.write(out)
        lines = [l for l in out.splitlines() if l.startswith("json ")]
        if not lines:
            raise RuntimeError("chunkwise-bench read printed no json line:\n" + out)
        r = json.loads(lines[0][5:])
        r["mda"] = None
        if not a.no_mdanalysis:
            r["mda"] = seconds(run([sys.executable, os.path.join(HERE, "peers", "mda_rmsd.py"), f, "--repeats", "1"]))
        results.append(r)

    threads = results[0]["threads"]
    cols = [short(r["layout"]) for r in results]
    width = max(12, max(len(c) for c in cols) + 1)

    def row(label, values, fmt="%.3f"):
        cells = "".join(("%*s" % (width, "-") if v is None else "%*s" % (width, fmt % v)) for v in values)
        print("%-40s%s" % (label, cells))

    print()
    print("%-40s%s" % ("seconds", "".join("%*s" % (width, c) for c in cols)))
    if not a.no_mdanalysis:
        row("MDAnalysis, 1 process", [r["mda"] for r in results])
    row("HDF5 C loop (H5Dread per chunk), 1 thread", [r["c_loop"] for r in results])
    for i, n in enumerate(threads):
        row("chunkwise, %d thread%s, %d MiB blocks" % (n, "" if n == 1 else "s", results[0]["block_mib"]),
            [r["chunkwise"][i] for r in results])
    row("chunkwise, 1 thread, %d MiB blocks" % results[0]["big_block_mib"], [r["big_block"] for r in results])
    row("  read alone, %d MiB blocks" % results[0]["block_mib"], [r["read_alone"] for r in results])
    row("  read alone, %d MiB blocks" % results[0]["big_block_mib"], [r["read_alone_big"] for r in results])
    for i, n in enumerate(threads):
        row("  read alone, %d thread%s" % (n, "" if n == 1 else "s"), [r["read_alone_threads"][i] for r in results])
    row("floor: cat", [r["cat"] for r in results])
    for i, n in enumerate(threads):
        row("floor: pread, %d thread%s, %d MiB blocks" % (n, "" if n == 1 else "s", results[0]["block_mib"]),
            [r["floor"][i] for r in results])
    row("floor: pread, 1 thread, %d MiB blocks" % results[0]["big_block_mib"], [r["floor_big"] for r in results])
    row("floor: inflate alone", [r["inflate"] for r in results])
    for i, n in enumerate(threads):
        row("read alone / floor, %d thread%s" % (n, "" if n == 1 else "s"),
            [r["read_alone_threads"][i] / r["floor"][i] for r in results], "%.2fx")
    for i, n in enumerate(threads):
        row("lock held, %% of read, %d thread%s" % (n, "" if n == 1 else "s"),
            [100 * r["lock_held"][i] / r["lock_read"][i] if r["lock_read"][i] > 0 else 0 for r in results], "%.2f")
    row("peak RSS MiB (bound)", [r["peak_rss_mib"] for r in results], "%.0f")
    row("", [r["rss_bound_mib"] for r in results], "(%.0f)")

    print("CPU: " + results[0]["cpu"])
    print()
    ok = True
    one = threads.index(1) if 1 in threads else None
    for r, c in zip(results, cols):
        notes = []
        if one is not None:
            t1 = r["chunkwise"][one]
            if r["inflate"] is not None:
                notes.append("%.2fx of inflate alone" % (t1 / r["inflate"]))
            else:
                notes.append("%.2fx of the C loop" % (t1 / r["c_loop"]))
            if r["mda"]:
                notes.append("%.1fx faster than MDAnalysis" % (r["mda"] / t1))
            for i, n in enumerate(threads):
                if n != 1:
                    notes.append("%d threads %.2fx of 1" % (n, t1 / r["chunkwise"][i]))
                    a1, an = r["read_alone_threads"][one], r["read_alone_threads"][i]
                    f1, fn = r["floor"][one], r["floor"][i]
                    notes.append("read alone S(%d) %.2f, %.2f of the floor's %.2f" % (n, a1 / an, (a1 / an) / (f1 / fn),
                                                                                     f1 / fn))
            notes.append("read alone %.2fx of the floor at 1 thread" % (r["read_alone_threads"][one] / r["floor"][one]))
            big_ratio = r["read_alone_big"] / r["read_alone"]
            floor_ratio = r["floor_big"] / r["floor"][one]
            notes.append("%d MiB blocks %.2fx of %d MiB (read alone %.2fx, the floor's %.2fx: %.2f of it)" % (
                r["big_block_mib"], r["big_block"] / t1, r["block_mib"], big_ratio, floor_ratio,
                big_ratio / floor_ratio))
        if r["peak_rss_mib"] is not None:
            notes.append("RSS %s bound" % ("within" if r["peak_rss_mib"] <= r["rss_bound_mib"] else "OVER"))
        if not r["same_values"]:
            notes.append("VALUES DIFFER FROM THE C LOOP")
            ok = False
        print("%-*s %s" % (width, c, "; ".join(notes)))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
